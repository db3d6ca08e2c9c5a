// Command stages answers the shell scripts' questions about what they
// measure, so that they and the Go helpers agree (scripts/lib.sh wraps it):
//
//	stages list               every stage but the workshop's, the floor last, one name a line
//	stages dir NAME...        the package folder of each stage (its server and benchmarks), one a line
//	stages against DIR [FROM] what check.sh compares the stage in folder DIR with: "BASE REFERENCE",
//	                          "-" for none (see stages.Against)
//	stages commit             the commit a measurement made now records: the short hash of
//	                          HEAD, with "(with uncommitted changes)" if the measured code differs
//	stages fresh COMMIT       fails, saying why, unless a measurement that recorded COMMIT still
//	                          measures the code as it is (provenance.Fresh)
//
// It runs in the repository's root folder. An unknown name is an error that
// lists the stages there are, and nothing is printed.
package main

import (
	"cmp"
	"errors"
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
	command, names := append(args, "")[0], args[min(1, len(args)):]
	switch {
	case command == "list":
		list, err := stages.Shown(root)
		return stages.Names(list), err
	case command == "dir" && len(names) > 0:
		found, err := stages.Find(root, names...)
		var out []string
		for _, s := range found {
			out = append(out, s.Dir)
		}
		return out, err
	case command == "against" && (len(names) == 1 || len(names) == 2):
		base, reference, err := stages.Against(root, names[0], append(names, "")[1])
		return []string{cmp.Or(base, "-") + " " + cmp.Or(reference, "-")}, err
	case command == "commit":
		commit, err := provenance.Commit(root)
		return []string{commit}, err
	case command == "fresh" && len(names) == 1:
		stale, err := provenance.Fresh(root, names[0])
		if err == nil && stale != "" {
			err = errors.New(stale)
		}
		return nil, err
	}
	return nil, fmt.Errorf("%q: want list, dir NAME..., against DIR [FROM], commit or fresh COMMIT", args)
}
