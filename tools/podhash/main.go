// Command podhash is the judge of the fake cluster's pod-template-hash: for each JSON line
// {"template": <v1.PodTemplateSpec>, "collisionCount": <int32 or null>} it answers
// {"hash": ..., "dump": ...} — kube-controller-manager's own controller.ComputeHash (imported
// from k8s.io/kubernetes at the pinned release, not copied) and the dump.ForHash text it hashes.
//
// The template is decoded as kube-controller-manager holds it: its informers read protobuf, so
// the JSON is unmarshalled, then marshalled to protobuf and unmarshalled again (an empty list or
// map comes back nil, a Quantity comes back parsed from its canonical string), then deep-copied
// as the Deployment controller's getNewReplicaSet copies it before hashing.
//
// scripts/podhash.mjs builds it, for test/cluster/controllers/podtemplatehash.test.ts, in a
// scratch module under .cache/podhash/<release>/.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/utils/dump"
)

type request struct {
	Template       json.RawMessage `json:"template"`
	CollisionCount *int32          `json:"collisionCount"`
}

type answer struct {
	Hash  string `json:"hash,omitempty"`
	Dump  string `json:"dump,omitempty"`
	Error string `json:"error,omitempty"`
}

func hash(line []byte) answer {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Error: err.Error()}
	}
	var fromJSON v1.PodTemplateSpec
	if err := json.Unmarshal(req.Template, &fromJSON); err != nil {
		return answer{Error: err.Error()}
	}
	wire, err := fromJSON.Marshal()
	if err != nil {
		return answer{Error: err.Error()}
	}
	var template v1.PodTemplateSpec
	if err := template.Unmarshal(wire); err != nil {
		return answer{Error: err.Error()}
	}
	template = *template.DeepCopy()
	return answer{
		Hash: controller.ComputeHash(&template, req.CollisionCount),
		Dump: dump.ForHash(template),
	}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 256<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		if err := enc.Encode(hash(in.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
