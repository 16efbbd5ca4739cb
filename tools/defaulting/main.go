// Command defaulting runs the pinned release's own defaulting functions — the SetDefaults_* of
// k8s.io/kubernetes/pkg/apis/*/v* and the generated SetObjectDefaults_* that walk each kind, as
// kube-apiserver registers them in its scheme — and reports what they do.
//
// scripts/apigen-defaults.mjs builds it in a scratch module that requires k8s.io/kubernetes:
//
//	defaulting rules      for every served kind, the fields its defaulters set on its probes (the
//	                      bare object; the object with every nested struct allocated and every
//	                      list and map of structs holding one element; and that object without
//	                      each of its structs behind a pointer in turn), one JSON line each
//	defaulting probes     the two probes of every served kind with defaults, as JSON lines
//	defaulting default    JSON objects in (one a line), each defaulted by the scheme, out
//	defaulting roundtrip  the same, decoded and encoded without defaulting
//	defaulting bookmarks  for every served kind, the object its watch BOOKMARKs carry: an empty
//	                      object of the internal type converted to the version, one JSON line each
//	defaulting bootstrap  the objects kube-apiserver's post-start hooks create: the API Priority
//	                      and Fairness configuration (k8s.io/apiserver's flowcontrol bootstrap: the
//	                      mandatory and suggested PriorityLevelConfigurations, then FlowSchemas)
//	                      and the system PriorityClasses, one JSON line each
//
// `rules` is what the fake cluster's defaulting is generated from; `default` is the judge its
// tests compare that defaulting with.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	flowcontrolbootstrap "k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/admission/install"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/extensions/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/imagepolicy/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	schedulingv1helpers "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
)

var scheme = legacyscheme.Scheme

func init() {
	// kube-apiserver serves these two from schemes of their own; their defaulters register the same way.
	apiextensionsinstall.Install(scheme)
	apiregistrationinstall.Install(scheme)
}

// Rule is one field a kind's defaulters set when it is unset.
type Rule struct {
	// Path from the object's root: JSON names; "[]" steps into every element of a list, "{}" into
	// every value of a map. A name ending in "!" is a struct held by value, which Go always has:
	// the fake creates it when absent, where a pointer's absence skips the rule.
	Path string `json:"p"`
	// The value the defaulters gave it (a whole struct when they allocated one).
	Value json.RawMessage `json:"v"`
	// The field's zero value counts as unset: a string, number or bool Go cannot tell from an
	// unset one, or a list or map the defaulter fills when it is empty (len == 0), not only nil.
	Zero bool `json:"z,omitempty"`
}

// KindRules is one kind's rules; Conflicts are paths the two probes defaulted differently (the
// defaulter decides on other fields: hand-written code in the fake must, too).
type KindRules struct {
	Group     string   `json:"g"`
	Version   string   `json:"v"`
	Kind      string   `json:"k"`
	Rules     []Rule   `json:"r"`
	Conflicts []string `json:"c,omitempty"`
}

var marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// leaf says whether a type is a JSON scalar however Go holds it (Time, Quantity, IntOrString,
// RawExtension, ...): they marshal themselves.
func leaf(t reflect.Type) bool {
	return t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)
}

// jsonName is a field's JSON name ("" when inlined, "-" when never in JSON).
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if tag == "-" {
		return "-"
	}
	if f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,") {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// expand allocates every pointer to a struct, and gives every list and map of structs one element,
// below v; `seen` holds the struct types on the way down, so recursive types stop.
func expand(v reflect.Value, seen map[reflect.Type]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		e := v.Type().Elem()
		if e.Kind() != reflect.Struct || leaf(e) || seen[e] {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(e))
		}
		expand(v.Elem(), seen)
	case reflect.Struct:
		t := v.Type()
		if leaf(t) || seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || jsonName(f) == "-" {
				continue
			}
			expand(v.Field(i), seen)
		}
	case reflect.Slice:
		e := v.Type().Elem()
		base := e
		if base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		if base.Kind() != reflect.Struct || leaf(base) || seen[base] {
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		if e.Kind() == reflect.Pointer {
			s.Index(0).Set(reflect.New(base))
		}
		expand(s.Index(0), seen)
		v.Set(s)
	case reflect.Map:
		e := v.Type().Elem()
		if v.Type().Key().Kind() != reflect.String || e.Kind() != reflect.Struct || leaf(e) || seen[e] {
			return
		}
		m := reflect.MakeMap(v.Type())
		elem := reflect.New(e).Elem()
		expand(elem, seen)
		m.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), elem)
		v.Set(m)
	}
}

// diff records in `out` a rule for every field the defaulters set: before is the probe, after the
// same probe defaulted, both of type t at path.
// omitEmpty: the field is tagged omitempty, so an empty value the defaulters set (a ConfigMap's
// `data`, made an empty map) never shows in JSON and makes no rule.
func diff(path string, before, after reflect.Value, omitEmpty bool, out map[string]Rule, conflicts map[string]bool) {
	diffInto(path, before, after, omitEmpty, out, conflicts)
}

// emptied: the paths of lists and maps the defaulters filled when sent empty, and the value.
var emptied = map[string]string{}

func diffInto(path string, before, after reflect.Value, omitEmpty bool, out map[string]Rule, conflicts map[string]bool) {
	t := before.Type()
	switch {
	case t.Kind() == reflect.Pointer:
		if before.IsNil() && after.IsNil() {
			return
		}
		if !before.IsNil() && !after.IsNil() && !leaf(t.Elem()) && t.Elem().Kind() == reflect.Struct {
			diff(path, before.Elem(), after.Elem(), false, out, conflicts)
			return
		}
	case t.Kind() == reflect.Struct && !leaf(t):
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if !f.IsExported() || name == "-" {
				continue
			}
			p := path
			if name != "" {
				if p != "" {
					p += "/"
				}
				p += name
				if f.Type.Kind() == reflect.Struct && !leaf(f.Type) {
					p += "!"
				}
			}
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			diff(p, before.Field(i), after.Field(i), strings.Contains(","+opts+",", ",omitempty,"), out, conflicts)
		}
		return
	case t.Kind() == reflect.Slice && before.Len() == after.Len() && before.Len() > 0:
		for i := 0; i < before.Len(); i++ {
			diff(path+"[]", before.Index(i), after.Index(i), false, out, conflicts)
		}
		return
	case t.Kind() == reflect.Map && before.Len() == after.Len() && before.Len() > 0:
		for _, k := range before.MapKeys() {
			b, a := before.MapIndex(k), after.MapIndex(k)
			if !a.IsValid() {
				continue
			}
			// Map values are not addressable: diff copies.
			bc, ac := reflect.New(t.Elem()).Elem(), reflect.New(t.Elem()).Elem()
			bc.Set(b)
			ac.Set(a)
			diff(path+"{}", bc, ac, false, out, conflicts)
		}
		return
	}
	if reflect.DeepEqual(before.Interface(), after.Interface()) {
		return
	}
	if (t.Kind() == reflect.Slice || t.Kind() == reflect.Map) && !before.IsNil() && before.Len() == 0 {
		if after.Len() > 0 {
			// An empty list the defaulter filled: its check is len(x) == 0.
			value, err := json.Marshal(after.Interface())
			if err != nil {
				panic(err)
			}
			emptied[strings.TrimSuffix(path, "!")] = string(value)
		}
		return
	}
	if omitEmpty && (after.IsZero() || (t.Kind() == reflect.Map || t.Kind() == reflect.Slice) && after.Len() == 0) {
		return
	}
	if !before.IsZero() {
		// A set field changed: the defaulter derives it from another; only code can say how.
		conflicts[path] = true
		return
	}
	value, err := json.Marshal(after.Interface())
	if err != nil {
		panic(err)
	}
	path = strings.TrimSuffix(path, "!")
	r := Rule{Path: path, Value: value, Zero: t.Kind() != reflect.Pointer && t.Kind() != reflect.Slice && t.Kind() != reflect.Map}
	if old, ok := out[path]; ok && string(old.Value) != string(value) {
		conflicts[path] = true
		return
	}
	out[path] = r
}

func served(gvk schema.GroupVersionKind) bool {
	if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
		return false
	}
	switch gvk.Kind {
	case "WatchEvent", "ListOptions", "DeleteOptions", "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions", "ExportOptions", "Status", "APIVersions", "APIGroup", "APIResourceList", "APIGroupList":
		return false
	}
	return !strings.HasSuffix(gvk.Kind, "Options")
}

// probe is one of the two probes of a kind: the bare object, or the expanded one.
func probe(gvk schema.GroupVersionKind, expanded bool) (runtime.Object, error) {
	obj, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if expanded {
		expand(reflect.ValueOf(obj), map[reflect.Type]bool{})
	}
	return obj, nil
}

// each calls visit with v and every value below it, with its position: the field indices (and,
// for lists, -1: element 0) that lead there (walk follows them). A pointer and what it points to
// share a position; values inside maps are left out (not addressable).
func each(v reflect.Value, at []int, visit func(reflect.Value, []int)) {
	visit(v, at)
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			each(v.Elem(), at, visit)
		}
	case reflect.Struct:
		if leaf(v.Type()) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				each(v.Field(i), append(at[:len(at):len(at)], i), visit)
			}
		}
	case reflect.Slice:
		if v.Len() > 0 && v.Type().Elem().Kind() != reflect.Uint8 {
			each(v.Index(0), append(at[:len(at):len(at)], -1), visit)
		}
	}
}

// pointers lists where v holds an allocated struct behind a pointer.
func pointers(v reflect.Value) [][]int {
	var out [][]int
	each(v, nil, func(x reflect.Value, at []int) {
		if x.Kind() == reflect.Pointer && !x.IsNil() && x.Type().Elem().Kind() == reflect.Struct && !leaf(x.Type().Elem()) {
			out = append(out, at)
		}
	})
	return out
}

// collections lists where v holds a list or a map.
func collections(v reflect.Value) [][]int {
	var out [][]int
	each(v, nil, func(x reflect.Value, at []int) {
		if x.Kind() == reflect.Map || x.Kind() == reflect.Slice && x.Type().Elem().Kind() != reflect.Uint8 {
			out = append(out, at)
		}
	})
	return out
}

// empty makes every list and map below v empty but not nil (what JSON's [] and {} decode to),
// the deepest first.
func empty(v reflect.Value) {
	all := collections(v)
	for i := len(all) - 1; i >= 0; i-- {
		emptyAt(v, all[i])
	}
}

// emptyAt makes the list or map `at` leads to empty but not nil.
func emptyAt(v reflect.Value, at []int) {
	v = walk(v, at)
	if v.Kind() == reflect.Map {
		v.Set(reflect.MakeMap(v.Type()))
	} else {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
}

// walk follows field indices (and -1: a list's first element) from v.
func walk(v reflect.Value, at []int) reflect.Value {
	for _, i := range at {
		for v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if i < 0 {
			v = v.Index(0)
		} else {
			v = v.Field(i)
		}
	}
	return v
}

// clearAt sets the pointer, list or map `at` leads to to nil.
func clearAt(v reflect.Value, at []int) {
	v = walk(v, at)
	v.Set(reflect.Zero(v.Type()))
}

// allProbes are the probes of a kind: the bare object; the expanded one; and, for each struct
// the expanded one holds behind a pointer, the expanded one without it (what the defaulters
// allocate where it is missing).
func allProbes(gvk schema.GroupVersionKind) ([]runtime.Object, error) {
	bare, err := probe(gvk, false)
	if err != nil {
		return nil, err
	}
	full, err := probe(gvk, true)
	if err != nil {
		return nil, err
	}
	emptied := full.DeepCopyObject()
	empty(reflect.ValueOf(emptied).Elem())
	out := []runtime.Object{bare, full, emptied}
	// The expanded object with one list or map at a time emptied, and left out: what is filled
	// when sent empty, or not sent.
	for _, p := range collections(reflect.ValueOf(full).Elem()) {
		o := full.DeepCopyObject()
		emptyAt(reflect.ValueOf(o).Elem(), p)
		out = append(out, o)
		o = full.DeepCopyObject()
		clearAt(reflect.ValueOf(o).Elem(), p)
		out = append(out, o)
	}
	for _, p := range pointers(reflect.ValueOf(full).Elem()) {
		o := full.DeepCopyObject()
		clearAt(reflect.ValueOf(o).Elem(), p)
		out = append(out, o)
	}
	return out, nil
}

func servedKinds() []schema.GroupVersionKind {
	kinds := scheme.AllKnownTypes()
	gvks := make([]schema.GroupVersionKind, 0, len(kinds))
	for gvk := range kinds {
		if served(gvk) {
			gvks = append(gvks, gvk)
		}
	}
	sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
	return gvks
}

func rules() error {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, gvk := range servedKinds() {
		out := map[string]Rule{}
		conflicts := map[string]bool{}
		objs, err := allProbes(gvk)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			before := obj.DeepCopyObject()
			scheme.Default(obj)
			diff("", reflect.ValueOf(before).Elem(), reflect.ValueOf(obj).Elem(), false, out, conflicts)
		}
		for p := range conflicts {
			delete(out, p)
		}
		for p, v := range emptied {
			if r, ok := out[p]; ok && string(r.Value) == v {
				r.Zero = true
				out[p] = r
			}
		}
		emptied = map[string]string{}
		if len(out) == 0 && len(conflicts) == 0 {
			continue
		}
		kr := KindRules{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
		for _, r := range out {
			kr.Rules = append(kr.Rules, r)
		}
		sort.Slice(kr.Rules, func(i, j int) bool { return kr.Rules[i].Path < kr.Rules[j].Path })
		for p := range conflicts {
			kr.Conflicts = append(kr.Conflicts, p)
		}
		sort.Strings(kr.Conflicts)
		if err := enc.Encode(kr); err != nil {
			return err
		}
	}
	return nil
}

// probes writes both probes of every served kind that has defaults.
func probes() error {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, gvk := range servedKinds() {
		objs, err := allProbes(gvk)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			defaulted := obj.DeepCopyObject()
			scheme.Default(defaulted)
			if reflect.DeepEqual(obj, defaulted) {
				continue
			}
			if err := enc.Encode(obj); err != nil {
				return err
			}
		}
	}
	return nil
}

// defaultObjects decodes each line into its versioned Go type (as the apiserver's JSON serializer
// does), runs the scheme's defaulters on it (unless `roundtrip`) and writes it back; a line that
// does not decode is answered {"error": ...}.
func defaultObjects(roundtrip bool) error {
	s := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{})
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		obj, _, err := s.Decode(in.Bytes(), nil, nil)
		if err == nil {
			if !roundtrip {
				scheme.Default(obj)
			}
			var b strings.Builder
			if err = s.Encode(obj, &b); err == nil {
				w.WriteString(strings.TrimSpace(b.String()))
				w.WriteString("\n")
				continue
			}
		}
		e, _ := json.Marshal(map[string]string{"error": err.Error()})
		w.Write(e)
		w.WriteString("\n")
	}
	return in.Err()
}

// apfBootstrap writes the priority levels, then the flow schemas, kube-apiserver's
// priority-and-fairness config producer ensures at start, in the order it creates them.
func bootstrap() error {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, pl := range append(flowcontrolbootstrap.MandatoryPriorityLevelConfigurations, flowcontrolbootstrap.SuggestedPriorityLevelConfigurations...) {
		o := pl.DeepCopy()
		o.APIVersion, o.Kind = "flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration"
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	for _, fs := range append(flowcontrolbootstrap.MandatoryFlowSchemas, flowcontrolbootstrap.SuggestedFlowSchemas...) {
		o := fs.DeepCopy()
		o.APIVersion, o.Kind = "flowcontrol.apiserver.k8s.io/v1", "FlowSchema"
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	// The scheduling/bootstrap-system-priority-classes hook's classes.
	for _, pc := range schedulingv1helpers.SystemPriorityClasses() {
		pc.APIVersion, pc.Kind = "scheduling.k8s.io/v1", "PriorityClass"
		if err := enc.Encode(pc); err != nil {
			return err
		}
	}
	return nil
}

// bookmarks writes, for every served kind, the object a watch BOOKMARK carries: the watch cache
// makes an empty object of the kind's internal type (the store's NewFunc) and the watch encodes it
// in the version watched, converting it there — so a conversion's defaults (a Deployment's
// replicas: 0, a DaemonSet's template-generation annotation) are in it. One JSON line each.
func bookmarks() error {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, gvk := range servedKinds() {
		var obj runtime.Object
		internal, err := scheme.New(gvk.GroupKind().WithVersion(runtime.APIVersionInternal))
		if err != nil {
			if obj, err = scheme.New(gvk); err != nil {
				return err
			}
		} else if obj, err = scheme.ConvertToVersion(internal, gvk.GroupVersion()); err != nil {
			return err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		if err := enc.Encode(map[string]interface{}{"g": gvk.Group, "v": gvk.Version, "k": gvk.Kind, "o": obj}); err != nil {
			return err
		}
	}
	return nil
}

// GoType describes how encoding/json writes a Go type (for `layout`): k is string, bool, int,
// uint, float, bytes, json (a type with its own MarshalJSON: Quantity, Time, IntOrString...),
// ptr, slice, map (e: the element), struct (n: its name), any.
type GoType struct {
	K string  `json:"k"`
	E *GoType `json:"e,omitempty"`
	N string  `json:"n,omitempty"`
}

// LayoutField is one field of an internal struct, in declaration order: its Go name, its type,
// and where its value comes from in the v1 object: the v1 field of the same Go name's JSON name
// (s), or none ("") when the v1 type has no such field or inlines it.
type LayoutField struct {
	Go string `json:"g"`
	T  GoType `json:"t"`
	S  string `json:"s,omitempty"`
	// An embedded struct: encoding/json writes its fields as the parent's, and its v1 twin is
	// inlined in the parent's JSON too.
	A bool `json:"a,omitempty"`
}

// Move is a v1 field a conversion function writes elsewhere in the internal object (PodSpec's
// host namespaces into its SecurityContext): the v1 JSON name, the internal Go path.
type Move struct {
	From string   `json:"from"`
	To   []string `json:"to"`
}

// LayoutStruct is one internal struct type reachable from the root.
type LayoutStruct struct {
	Name   string        `json:"n"`
	Fields []LayoutField `json:"f"`
	Moves  []Move        `json:"m,omitempty"`
}

func goTypeOf(t reflect.Type, todo *[]reflect.Type) GoType {
	if leaf(t) {
		return GoType{K: "json", N: t.String()}
	}
	switch t.Kind() {
	case reflect.String:
		return GoType{K: "string"}
	case reflect.Bool:
		return GoType{K: "bool"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return GoType{K: "int"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return GoType{K: "uint"}
	case reflect.Float32, reflect.Float64:
		return GoType{K: "float"}
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return GoType{K: "bytes"}
		}
		e := goTypeOf(t.Elem(), todo)
		k := map[reflect.Kind]string{reflect.Pointer: "ptr", reflect.Slice: "slice", reflect.Map: "map"}[t.Kind()]
		return GoType{K: k, E: &e}
	case reflect.Struct:
		*todo = append(*todo, t)
		return GoType{K: "struct", N: t.String()}
	}
	return GoType{K: "any"}
}

// v1Twin is the k8s.io/api type of the same name as an internal struct, when there is one.
var v1Types = map[string]reflect.Type{}

func v1Twin(t reflect.Type) reflect.Type {
	return v1Types[t.Name()]
}

// collectV1 indexes the k8s.io/api struct types reachable from t by name.
func collectV1(t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || leaf(t) || v1Types[t.Name()] != nil {
		return
	}
	v1Types[t.Name()] = t
	for i := 0; i < t.NumField(); i++ {
		collectV1(t.Field(i).Type)
	}
}

// changedPath finds the first leaf where a and b differ, as Go field names.
func changedPath(a, b reflect.Value, path []string) []string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() != b.IsNil() {
			return path
		}
		if a.IsNil() {
			return nil
		}
		return changedPath(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if p := changedPath(a.Field(i), b.Field(i), append(append([]string{}, path...), a.Type().Field(i).Name)); p != nil {
				return p
			}
		}
		return nil
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return path
	}
	return nil
}

// movesOf probes the conversion of a v1 struct into its internal twin: each v1 field with no
// internal field of its name is set (true, a string) alone, and where the internal object changes
// is where the conversion puts it.
func movesOf(internal, external reflect.Type) ([]Move, error) {
	zeroIn := reflect.New(internal)
	if err := scheme.Convert(reflect.New(external).Interface(), zeroIn.Interface(), nil); err != nil {
		return nil, err
	}
	var moves []Move
	for i := 0; i < external.NumField(); i++ {
		f := external.Field(i)
		if _, ok := internal.FieldByName(f.Name); ok {
			continue
		}
		ext := reflect.New(external)
		fv := ext.Elem().Field(i)
		switch {
		case f.Type.Kind() == reflect.Bool:
			fv.SetBool(true)
		case f.Type.Kind() == reflect.String:
			fv.SetString("x")
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Bool:
			t := true
			fv.Set(reflect.ValueOf(&t))
		default:
			continue
		}
		in := reflect.New(internal)
		if err := scheme.Convert(ext.Interface(), in.Interface(), nil); err != nil {
			return nil, err
		}
		if p := changedPath(zeroIn.Elem(), in.Elem(), nil); p != nil {
			moves = append(moves, Move{From: jsonName(f), To: p})
		}
	}
	return moves, nil
}

// layout writes the internal types reachable from core.PodSpec as encoding/json writes them
// (field order, Go names, no tags), each field's v1 source, and the conversion's moves: what
// kube-apiserver's messages that print an internal PodSpec (a Job's immutable template, a Pod's
// forbidden update) are made of. One JSON line per struct.
func layout() error {
	collectV1(reflect.TypeOf(corev1.PodSpec{}))
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	todo := []reflect.Type{reflect.TypeOf(core.PodSpec{})}
	done := map[reflect.Type]bool{}
	for len(todo) > 0 {
		t := todo[0]
		todo = todo[1:]
		if done[t] {
			continue
		}
		done[t] = true
		twin := v1Twin(t)
		if t.PkgPath() != reflect.TypeOf(core.PodSpec{}).PkgPath() {
			twin = t // metav1, resource, intstr: one type, versioned and internal alike
		}
		st := LayoutStruct{Name: t.String()}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			lf := LayoutField{Go: f.Name, T: goTypeOf(f.Type, &todo), A: f.Anonymous}
			if twin != nil {
				if tf, ok := twin.FieldByName(f.Name); ok {
					lf.S = jsonName(tf)
				}
			}
			st.Fields = append(st.Fields, lf)
		}
		// Only an internal type converts (metav1's are the same type in both).
		if twin != nil && twin != t {
			moves, err := movesOf(t, twin)
			if err != nil {
				return err
			}
			st.Moves = moves
		}
		if err := enc.Encode(st); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	var err error
	switch cmd := strings.Join(os.Args[1:], " "); cmd {
	case "rules":
		err = rules()
	case "probes":
		err = probes()
	case "default":
		err = defaultObjects(false)
	case "roundtrip":
		err = defaultObjects(true)
	case "bootstrap":
		err = bootstrap()
	case "bookmarks":
		err = bookmarks()
	case "layout":
		err = layout()
	default:
		err = fmt.Errorf("usage: defaulting rules | probes | default | roundtrip | bootstrap | bookmarks | layout (not %q)", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
