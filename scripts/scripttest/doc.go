// Package scripttest holds tests of the shell scripts: each runs a script
// of this folder in a small workspace of its own, with a stage whose
// benchmarks pass, fail or panic, and checks what the script says, what
// it exits with and what it leaves behind.
//
//	go test -count=1 ./scripts/scripttest   (go test cannot see that a script changed)
package scripttest
