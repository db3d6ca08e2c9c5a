package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"example.com/userperf/common/user"
)

// logOut is where the request log goes: standard error, as in a first
// version. os.Stderr is an *os.File with no buffer in front of it, so every
// Fprint below is a write system call of its own. It is a variable only so
// that start_test.go can count those calls.
var logOut io.Writer = os.Stderr

// logList logs a list request the way a developer does while making it
// work: a line for the request, written field by field, with the role
// echoed one character at a time, and a line for every user found. Each
// piece is printed the moment it is known, like the print() in every step
// of the handler in the print() case study.
//
// This is the starting point of side quest 7 in WORKSHOP.md: correct, and
// slow in a way that a benchmark in process and a load test show
// differently.
func logList(role string, found []*user.User, took time.Duration) {
	fmt.Fprint(logOut, time.Now().Format(time.RFC3339Nano))
	fmt.Fprint(logOut, " list role=")
	// Quoted, so that a role holding a newline cannot forge a log line.
	for _, c := range strconv.Quote(role) {
		fmt.Fprintf(logOut, "%c", c)
	}
	fmt.Fprint(logOut, " matches=")
	fmt.Fprint(logOut, len(found))
	fmt.Fprint(logOut, " took=")
	fmt.Fprint(logOut, took)
	fmt.Fprint(logOut, "\n")
	for _, u := range found {
		fmt.Fprint(logOut, "  found ")
		fmt.Fprint(logOut, u.ID)
		fmt.Fprint(logOut, "\n")
	}
}
