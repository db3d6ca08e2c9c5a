package main

import (
	"fmt"
	"io"

	"example.com/userperf/scripts/internal/provenance"
)

// check prints every generated block and chart under root that may no
// longer describe the code, and the measured files with uncommitted
// changes, and reports whether there were none.
func check(w io.Writer, root string) (bool, error) {
	r, err := provenance.Check(root)
	if err != nil {
		return false, err
	}
	stale := 0
	for _, f := range r.Figures {
		if f.Stale != "" {
			stale++
			fmt.Fprintf(w, "stale: %s: %s\n", f.Where, f.Stale)
		}
	}
	for _, file := range r.Uncommitted {
		fmt.Fprintf(w, "uncommitted: %s\n", file)
	}
	if r.OK() {
		fmt.Fprintf(w, "report: all %d generated blocks and charts measured the code at HEAD\n", len(r.Figures))
		return true, nil
	}
	fmt.Fprintf(w, "report: %d of %d generated blocks and charts are stale, %d measured files differ from HEAD; "+
		"commit the code, then measure again (./scripts/compare.sh --thorough, ./scripts/load.sh, "+
		"./scripts/report.sh --profiles)\n", stale, len(r.Figures), len(r.Uncommitted))
	return false, nil
}
