package v1

// The DeepCopy methods are generated as kubebuilder's `make generate` does; `go generate ./...`
// runs the same pinned controller-gen as the Makefile.
//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.21.0 object:headerFile=../../hack/boilerplate.go.txt paths=./...
