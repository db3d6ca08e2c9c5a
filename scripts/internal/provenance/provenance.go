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
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
)

// Uncommitted follows the commit of a measurement made while the measured
// code differed from that commit; such figures belong to no commit.
const Uncommitted = "(with uncommitted changes)"

// Line is the provenance line of figures measured with config, the
// configuration lines of their result file (scripts/lib.sh's machine_info).
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
		commit = "commit `" + m[1] + "`" + m[2]
	}
	return fmt.Sprintf("Measured on %s, %s, %s, %s, by `%s`.", machine, get("go-version"), date, commit, get("command"))
}

// commitValue is the commit line of a header: "8899ddb" or "8899ddb (with
// uncommitted changes)"; recordedCommit is the commit a figure records.
var (
	commitValue    = regexp.MustCompile(`^([0-9a-f]{4,40})( ` + regexp.QuoteMeta(Uncommitted) + `)?$`)
	recordedCommit = regexp.MustCompile("commit `([0-9a-f]{4,40})`( " + regexp.QuoteMeta(Uncommitted) + ")?")
)

// Block is the generated text between the markers
// <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name --> of a
// markdown file. Only the scripts write there; the prose around it is left
// alone.
type Block struct{ Name, Content string }

// blocks finds every block of a markdown file: its name, content and the
// name its end marker gives, which must be the same.
var blocks = regexp.MustCompile(`(?s)<!-- BEGIN GENERATED: (\S+) -->\n?(.*?)<!-- END GENERATED: (\S+) -->`)

// UpdateFile replaces blocks in the markdown file at path. A block without
// one pair of markers is an error, after the others have been replaced.
func UpdateFile(path string, update ...Block) error {
	old, err := os.ReadFile(path)
	doc := string(old)
	for _, b := range update {
		begin, end := "<!-- BEGIN GENERATED: "+b.Name+" -->", "<!-- END GENERATED: "+b.Name+" -->"
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i || strings.Count(doc, begin) != 1 || strings.Count(doc, end) != 1 {
			err = errors.Join(err, fmt.Errorf("%s: want one %s followed by one %s", path, begin, end))
			continue
		}
		doc = doc[:i+len(begin)] + "\n" + b.Content + doc[j:]
	}
	if doc == string(old) {
		return err
	}
	return errors.Join(err, os.WriteFile(path, []byte(doc), 0o644))
}
