// Package provenance ties every generated figure to the code it measured.
// A generated block of a markdown file, and the footer of a chart, carry
// a provenance line that names the machine, the date, the commit and the
// command:
//
//	Measured on AMD EPYC (2 cores), go1.26.8, 2026-11-30T14:36Z, commit `8899ddb`, by `./scripts/compare.sh --thorough`.
//
// Check lists the figures whose measured code (the stage folders, common
// and the benchmark harness) changed after the commit they record.
// Anything that writes a block by hand follows the same convention: the
// text "commit `<short sha>`" somewhere in the block.
package provenance

import (
	"fmt"
	"regexp"
	"time"
)

// Uncommitted follows the commit of a measurement made while the measured
// code differed from that commit; such figures belong to no commit.
const Uncommitted = "(with uncommitted changes)"

// Line is the provenance line of figures measured with config, the
// configuration lines of their result file (see scripts/lib.sh's
// machine_info).
func Line(config map[string]string) string {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v := config[k]; v != "" {
				return v
			}
		}
		return "unknown"
	}
	machine := get("machine-cpu", "cpu")
	if cores := config["machine-cores"]; cores != "" {
		machine += " (" + cores + " cores)"
	}
	date := get("date")
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		date = t.UTC().Format("2006-01-02T15:04Z")
	}
	commit := "commit unknown"
	if m := commitValue.FindStringSubmatch(config["commit"]); m != nil {
		commit = "commit `" + m[1] + "`"
		if m[2] != "" {
			commit += " " + m[2]
		}
	}
	return fmt.Sprintf("Measured on %s, %s, %s, %s, by `%s`.", machine, get("go-version"), date, commit, get("command"))
}

// commitValue is the commit line of a header: "8899ddb" or "8899ddb (with
// uncommitted changes)".
var commitValue = regexp.MustCompile(`^([0-9a-f]{4,40})(?: (` + regexp.QuoteMeta(Uncommitted) + `))?$`)

// recordedCommit finds the commits a generated text records.
var recordedCommit = regexp.MustCompile("commit `([0-9a-f]{4,40})`( " + regexp.QuoteMeta(Uncommitted) + ")?")

// recorded is one commit a figure names.
type recorded struct {
	commit      string
	uncommitted bool
}

// commits lists the commits that text records, in order.
func commits(text string) []recorded {
	var rs []recorded
	for _, m := range recordedCommit.FindAllStringSubmatch(text, -1) {
		rs = append(rs, recorded{m[1], m[2] != ""})
	}
	return rs
}
