// Package crosscheck holds one test, TestStageServersAgree: it builds every
// stage's server, starts them all on loopback, sends each the same random
// sequences of requests over real HTTP, and requires the same status,
// headers and bytes from all of them. The in-process differential tests
// compare each stage with a reference; this checks the real binaries
// against each other, socket and all.
//
//	go test -v ./scripts/crosscheck
package crosscheck
