// Command openapiv2pb turns an OpenAPI v2 document into the protobuf kube-apiserver serves at
// /openapi/v2 to a client that asks for application/com.github.proto-openapi.spec.v2.v1.0+protobuf
// (kubectl's validation, client-go's discovery OpenAPISchema): gnostic's openapi_v2.Document, made
// as kube-openapi's handler.ToProtoBinary makes it (ParseDocument, then proto.Marshal).
//
// scripts/apigen-openapiv2pb.mjs runs it in a scratch module that requires the gnostic-models
// and protobuf modules of the pinned release's go.mod:
//
//	openapiv2pb encode          the JSON document on stdin, its protobuf on stdout
//	openapiv2pb fields          the field numbers of every message of OpenAPIv2.proto, as JSON
//	                            ({"Schema": {"_ref": [1, "string", ""], "properties": [25,
//	                            "message", "Properties"], "required": [19, "string", "repeated"]}})
//	                            for the server's encoder of what it adds at run time
//	openapiv2pb compare FILE    protobuf on stdin, a JSON document in FILE: whether the protobuf
//	                            decodes (proto.Unmarshal, as client-go does) into the document
//	                            ParseDocument makes of the JSON; prints the differences, exit 1
//
// `compare` is the judge the tests hold the server's protobuf to.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: openapiv2pb encode|fields|compare FILE")
	}
	switch os.Args[1] {
	case "encode":
		doc, err := openapi_v2.ParseDocument(readAll(os.Stdin))
		check(err)
		out, err := proto.Marshal(doc)
		check(err)
		_, err = os.Stdout.Write(out)
		check(err)
	case "fields":
		check(json.NewEncoder(os.Stdout).Encode(fields()))
	case "compare":
		if len(os.Args) != 3 {
			fail("usage: openapiv2pb compare FILE < protobuf")
		}
		text, err := os.ReadFile(os.Args[2])
		check(err)
		want, err := openapi_v2.ParseDocument(text)
		check(err)
		got := &openapi_v2.Document{}
		check(proto.Unmarshal(readAll(os.Stdin), got))
		diffs := compare(plain(want), plain(got), "", nil)
		diffs = append(diffs, order(want, got)...)
		for i, d := range diffs {
			if i == 20 {
				fmt.Printf("… and %d more\n", len(diffs)-20)
				break
			}
			fmt.Println(d)
		}
		if len(diffs) > 0 {
			os.Exit(1)
		}
		fmt.Println("equal")
	default:
		fail("unknown command " + os.Args[1])
	}
}

// fields describes each message by its fields' names: number, kind, and the message a field of
// kind message holds; "repeated" when the field is.
func fields() map[string]map[string][3]any {
	out := map[string]map[string][3]any{}
	msgs := openapi_v2.File_openapiv2_OpenAPIv2_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Get(i)
		fs := map[string][3]any{}
		for j := 0; j < m.Fields().Len(); j++ {
			f := m.Fields().Get(j)
			kind := f.Kind().String()
			msg := ""
			if f.Kind() == protoreflect.MessageKind {
				msg = string(f.Message().Name())
			}
			if f.Cardinality() == protoreflect.Repeated {
				kind = "repeated " + kind
			}
			fs[string(f.Name())] = [3]any{int(f.Number()), kind, msg}
		}
		out[string(m.Name())] = fs
	}
	return out
}

// plain is the document as gnostic renders it back (ToRawInfo), read as plain JSON values: the
// YAML of an Any (default, enum, example, x-… extensions) compared by what it says, not by how.
func plain(doc *openapi_v2.Document) any {
	b, err := yaml.Marshal(doc.ToRawInfo())
	check(err)
	var v any
	check(yaml.Unmarshal(b, &v))
	j, err := json.Marshal(v)
	check(err)
	var out any
	check(json.Unmarshal(j, &out))
	return out
}

// compare lists where got differs from want, by JSON path (an object's keys in any order).
func compare(want, got any, at string, diffs []string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return append(diffs, fmt.Sprintf("%s: want an object, got %v", at, brief(got)))
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inW:
				diffs = append(diffs, fmt.Sprintf("%s/%s: not wanted, got %v", at, k, brief(gv)))
			case !inG:
				diffs = append(diffs, fmt.Sprintf("%s/%s: missing, want %v", at, k, brief(wv)))
			default:
				diffs = compare(wv, gv, at+"/"+k, diffs)
			}
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return append(diffs, fmt.Sprintf("%s: want %v, got %v", at, brief(want), brief(got)))
		}
		for i := range w {
			diffs = compare(w[i], g[i], fmt.Sprintf("%s/%d", at, i), diffs)
		}
		return diffs
	default:
		if !reflect.DeepEqual(want, got) {
			return append(diffs, fmt.Sprintf("%s: want %v, got %v", at, brief(want), brief(got)))
		}
		return diffs
	}
}

// order lists how the order of the paths and of the definitions differs: they are repeated
// fields, whose order a client reading the protobuf sees.
func order(want, got *openapi_v2.Document) []string {
	var diffs []string
	names := func(what string, w, g []string) {
		if !reflect.DeepEqual(w, g) {
			diffs = append(diffs, fmt.Sprintf("the %s are not in the order of the JSON", what))
		}
	}
	pathNames := func(d *openapi_v2.Document) (out []string) {
		for _, p := range d.GetPaths().GetPath() {
			out = append(out, p.GetName())
		}
		return out
	}
	defNames := func(d *openapi_v2.Document) (out []string) {
		for _, s := range d.GetDefinitions().GetAdditionalProperties() {
			out = append(out, s.GetName())
		}
		return out
	}
	names("paths", pathNames(want), pathNames(got))
	names("definitions", defNames(want), defNames(got))
	return diffs
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func readAll(r io.Reader) []byte {
	b, err := io.ReadAll(r)
	check(err)
	return b
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "openapiv2pb:", msg)
	os.Exit(2)
}
