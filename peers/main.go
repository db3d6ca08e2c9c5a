// Command peers is not a program: it is stage4-append's encoder, in copies
// of the stage's own files (encode.go, escape.go, buffer.go and
// encode_test.go), benchmarked against the JSON libraries a Go programmer
// would use instead of writing one. It lives in a module of its own so that
// the stage does not depend on those libraries. The copies are plain files,
// which every checkout makes (a symbolic link is a text file on Windows);
// scripts/internal/stages/copies_test.go fails when one differs from the
// stage's file, so that what is measured here is the stage's code as it is.
//
//	go test -run '^$' -bench Encode -count 6 ./peers
package main

// main exists because the copied files belong to a package main; the
// benchmarks never run it.
func main() {}
