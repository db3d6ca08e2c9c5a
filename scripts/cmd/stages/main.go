// Command stages answers the shell scripts' questions about what they
// measure, so that they and the Go helpers agree (scripts/lib.sh wraps it):
//
//	stages list             every stage of go.work but the workshop's, then the floor, one
//	                        name a line, in table order
//	stages dir NAME...      the package folder of each stage (its benchmarks), one a line
//	stages server NAME...   the main package of each stage's server, one a line
//	stages commit           the commit a measurement made now records: the short hash of
//	                        HEAD, with "(with uncommitted changes)" if the measured code differs
//
// A stage is any module of go.work whose folder has a stage_test.go. It
// runs in the repository's root folder. An unknown name is an error that
// lists the stages there are, and nothing is printed.
package main

import (
	"fmt"
	"os"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	out, err := answer(".", os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "stages:", err)
		os.Exit(2)
	}
	for _, line := range out {
		fmt.Println(line)
	}
}

// answer returns the lines that args ask for about the repository at root.
func answer(root string, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("want list, dir NAME..., server NAME... or commit")
	}
	command, names := args[0], args[1:]
	switch command {
	case "list":
		list, err := stages.Shown(root)
		return stages.Names(list), err
	case "dir", "server":
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: name at least one stage", command)
		}
		found, err := stages.Find(root, names...)
		var out []string
		for _, s := range found {
			if command == "dir" {
				out = append(out, s.Dir)
			} else {
				out = append(out, s.Server)
			}
		}
		return out, err
	case "commit":
		commit, err := provenance.Commit(root)
		return []string{commit}, err
	}
	return nil, fmt.Errorf("unknown command %q: want list, dir, server or commit", command)
}
