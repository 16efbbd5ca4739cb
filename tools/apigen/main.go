// Command apigen writes the type graph of every kind the Kubernetes API serves, read by reflection
// from the Go types of k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver and
// k8s.io/kube-aggregator. Their struct tags are Kubernetes' own definitions: the JSON names,
// omitempty and the protobuf field numbers that generated.proto was made from.
//
// scripts/apigen/ runs it in a scratch module that requires the pinned release's staging modules:
//
//	apigen types <release>        the graph, as JSON on stdout
//	apigen conform                JSON objects in (one a line), for each a line out:
//	                              {"proto": base64 of k8s' own Marshal, "json": json.Marshal of
//	                              the object Unmarshal makes of those bytes}
//
// `conform` is the judge the tests compare the TypeScript encoder and decoder with.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/scheme"
)

// Kind is one served group/version/kind and the Go type it decodes into.
type Kind struct {
	Group   string `json:"g"`
	Version string `json:"v"`
	Kind    string `json:"k"`
	Type    string `json:"t"`
}

// Field is one exported struct field.
type Field struct {
	JSON      string `json:"j"`           // JSON name; "" for an inlined (embedded) struct, "-" when never in JSON
	Go        string `json:"g"`           // Go field name
	Type      any    `json:"t"`           // a type expression (see typeExpr)
	OmitEmpty bool   `json:"o,omitempty"` // json:",omitempty"
	OmitZero  bool   `json:"z,omitempty"` // json:",omitzero"
	Inline    bool   `json:"i,omitempty"` // json:",inline" or embedded without a name
	Protobuf  string `json:"p,omitempty"` // the protobuf tag: "bytes,1,opt,name=metadata", ...
	ProtoKey  string `json:"pk,omitempty"`
	ProtoVal  string `json:"pv,omitempty"`
	Strategy  string `json:"ps,omitempty"` // patchStrategy
	MergeKey  string `json:"pm,omitempty"` // patchMergeKey
}

// Type is a named Go type: a struct with fields, or a named type over an unnamed one.
type Type struct {
	Kind       string  `json:"k"` // "struct" or "named"
	String     string  `json:"s"` // as reflect prints it: v1.Deployment
	Fields     []Field `json:"f,omitempty"`
	Underlying any     `json:"u,omitempty"`
	// Marshals itself to JSON (MarshalJSON on the value or its pointer).
	CustomJSON bool `json:"cj,omitempty"`
	// Marshals itself to protobuf by hand rather than from its fields' tags.
	CustomProto bool `json:"cp,omitempty"`
	// Has an IsZero method, which omitzero asks.
	IsZero bool `json:"iz,omitempty"`
	// Has a generated protobuf Marshal of its own: a named slice type that is a message of
	// `repeated items = 1` (metav1.Verbs, ExtraValue) rather than a repeated field.
	ProtoMessage bool `json:"pm,omitempty"`
}

type graph struct {
	types map[string]*Type
}

func typeID(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

var (
	jsonMarshaler  = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	isZeroer       = reflect.TypeOf((*interface{ IsZero() bool })(nil)).Elem()
	protoMarshaler = reflect.TypeOf((*interface{ Marshal() ([]byte, error) })(nil)).Elem()
	// Types whose protobuf encoding is written by hand (not derived from their fields' tags).
	customProto = map[string]bool{
		"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       true,
		"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  true,
		"k8s.io/apimachinery/pkg/api/resource.Quantity":   true,
		"k8s.io/apimachinery/pkg/runtime.RawExtension":    true,
		"k8s.io/apimachinery/pkg/apis/meta/v1.Timestamp":  false,
		"k8s.io/apimachinery/pkg/util/intstr.IntOrString": false,
	}
)

// typeExpr: a basic kind's name ("string", "int32", "bytes", "interface"), the id of a named
// type (contains a "."), or {"k":"ptr"|"slice"|"map","e":elem,"key":key} for unnamed composites.
func (g *graph) typeExpr(t reflect.Type) any {
	if t.Name() != "" && t.PkgPath() != "" {
		g.add(t)
		return typeID(t)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return map[string]any{"k": "ptr", "e": g.typeExpr(t.Elem())}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && t.Elem().PkgPath() == "" {
			return "bytes"
		}
		return map[string]any{"k": "slice", "e": g.typeExpr(t.Elem())}
	case reflect.Array:
		return map[string]any{"k": "array", "e": g.typeExpr(t.Elem()), "n": t.Len()}
	case reflect.Map:
		return map[string]any{"k": "map", "key": g.typeExpr(t.Key()), "e": g.typeExpr(t.Elem())}
	case reflect.Interface:
		return "interface"
	case reflect.Struct:
		panic(fmt.Sprintf("anonymous struct %s", t))
	default:
		return t.Kind().String()
	}
}

func (g *graph) add(t reflect.Type) {
	id := typeID(t)
	if _, ok := g.types[id]; ok {
		return
	}
	out := &Type{String: t.String()}
	g.types[id] = out
	out.CustomJSON = t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler)
	out.CustomProto = customProto[id]
	out.IsZero = t.Implements(isZeroer) || reflect.PointerTo(t).Implements(isZeroer)
	out.ProtoMessage = t.Implements(protoMarshaler) || reflect.PointerTo(t).Implements(protoMarshaler)
	if t.Kind() != reflect.Struct {
		out.Kind = "named"
		// The underlying type, spelled as an unnamed one.
		switch t.Kind() {
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				out.Underlying = "bytes"
			} else {
				out.Underlying = map[string]any{"k": "slice", "e": g.typeExpr(t.Elem())}
			}
		case reflect.Map:
			out.Underlying = map[string]any{"k": "map", "key": g.typeExpr(t.Key()), "e": g.typeExpr(t.Elem())}
		case reflect.Pointer:
			out.Underlying = map[string]any{"k": "ptr", "e": g.typeExpr(t.Elem())}
		case reflect.Interface:
			out.Underlying = "interface"
		default:
			out.Underlying = t.Kind().String()
		}
		return
	}
	out.Kind = "struct"
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		f := Field{Go: sf.Name, Type: nil}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		f.JSON = name
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				f.OmitEmpty = true
			case "omitzero":
				f.OmitZero = true
			case "inline":
				f.Inline = true
			}
		}
		if sf.Anonymous && name == "" {
			f.Inline = true
		}
		f.Protobuf = sf.Tag.Get("protobuf")
		f.ProtoKey = sf.Tag.Get("protobuf_key")
		f.ProtoVal = sf.Tag.Get("protobuf_val")
		f.Strategy = sf.Tag.Get("patchStrategy")
		f.MergeKey = sf.Tag.Get("patchMergeKey")
		if f.JSON == "" && !f.Inline {
			f.JSON = sf.Name
		}
		// time.Time inside metav1.Time: the special type stands for it, nothing to describe.
		if sf.Type.PkgPath() == "time" {
			f.Type = "time." + sf.Type.Name()
		} else {
			f.Type = g.typeExpr(sf.Type)
		}
		out.Fields = append(out.Fields, f)
	}
}

func schemes() []*runtime.Scheme {
	return []*runtime.Scheme{scheme.Scheme, apiextensionsscheme.Scheme, aggregatorscheme.Scheme}
}

func types(release string) {
	g := &graph{types: map[string]*Type{}}
	seen := map[schema.GroupVersionKind]bool{}
	var kinds []Kind
	for _, s := range schemes() {
		for gvk, t := range s.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal || seen[gvk] {
				continue
			}
			seen[gvk] = true
			kinds = append(kinds, Kind{gvk.Group, gvk.Version, gvk.Kind, g.typeExpr(t).(string)})
		}
	}
	// Wire types no scheme registers as a kind but every protobuf body or stream carries.
	for _, v := range []any{runtime.Unknown{}, metav1.Timestamp{}, apiextensionsv1.JSON{}, apiregistrationv1.APIService{}} {
		g.typeExpr(reflect.TypeOf(v))
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := kinds[i], kinds[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"release": release, "kinds": kinds, "types": g.types}); err != nil {
		panic(err)
	}
}

func newObject(gvk schema.GroupVersionKind) runtime.Object {
	for _, s := range schemes() {
		if o, err := s.New(gvk); err == nil {
			return o
		}
	}
	return nil
}

// conform decodes each line's JSON object into its Go type, as kube-apiserver does, and answers
// that value's protobuf (k8s' generated Marshal, without the envelope) and its JSON.
func conform() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for in.Scan() {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(in.Bytes(), &tm); err != nil {
			panic(err)
		}
		gvk := schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind)
		obj := newObject(gvk)
		answer := map[string]any{}
		if obj == nil {
			answer["error"] = "no kind " + gvk.String()
		} else if err := json.Unmarshal(in.Bytes(), obj); err != nil {
			answer["error"] = err.Error()
		} else if m, ok := obj.(interface{ Marshal() ([]byte, error) }); !ok {
			answer["error"] = "no protobuf for " + gvk.String()
		} else if b, err := m.Marshal(); err != nil {
			answer["error"] = err.Error()
		} else {
			// The JSON is of the object decoded from those bytes, as the apiserver holds a
			// protobuf body: what the wire cannot tell apart (nil or empty) reads back as Go reads it.
			back := newObject(gvk)
			if err := back.(interface{ Unmarshal([]byte) error }).Unmarshal(b); err != nil {
				panic(err)
			}
			j, err := json.Marshal(back)
			if err != nil {
				panic(err)
			}
			answer["proto"] = b
			answer["json"] = json.RawMessage(j)
		}
		if err := out.Encode(answer); err != nil {
			panic(err)
		}
	}
	if err := in.Err(); err != nil {
		panic(err)
	}
}

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "types" {
		types(os.Args[2])
		return
	}
	if len(os.Args) == 2 && os.Args[1] == "conform" {
		conform()
		return
	}
	fmt.Fprintln(os.Stderr, "usage: apigen types <release> | apigen conform")
	os.Exit(2)
}
