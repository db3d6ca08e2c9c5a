// Command peers is not a program: it is stage4-append's encoder, reached
// through symbolic links to the stage's own files (encode.go, escape.go,
// buffer.go and encode_test.go), benchmarked against the JSON
// libraries a Go programmer would use instead of writing one. It lives in a
// module of its own so that the stage does not depend on those libraries,
// and the links, not copies, make sure that what is measured here is the
// stage's code as it is.
//
//	go test -run '^$' -bench Encode -count 6 ./peers
package main

// main exists because the linked files belong to a package main; the
// benchmarks never run it.
func main() {}
