package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// The benchmarks of the README's table: the case study's main request,
// finding and encoding the 100 users of one role among 10,000; the same
// request through the Echo handler, which puts the floor, whose ListByRole
// is a map lookup, on the same footing; and, once the results hold them,
// what one write costs and the heap a stage holds per user.
const (
	headline    = "ListByRole/users=10000/matches=100"
	throughEcho = "ServeHTTP/users=10000/matches=100"
	writeBench  = "Write/users=10000/roles=3" // one Add and one Delete
	buildBench  = "Build/users=10000"
	heldUnit    = "held-B/user"
)

// stagesTable is the README's table: for every stage, what it changes and
// how much code that takes (diffSize against the previous step), the
// median time of the headline benchmark, its speed-up against the
// previous step and against the first stage, and the medians of the
// columns that the results have.
func stagesTable(root string, list []stages.Stage, files []*results.File) string {
	columns := slices.DeleteFunc([]column{
		{"allocs/op", headline, "allocs/op", count, ""},
		{"through Echo", throughEcho, "sec/op", results.Duration,
			"Through Echo: the median of `Benchmark" + throughEcho + "`, the same request through the Echo handler."},
		{"write", writeBench, "sec/op", results.Duration,
			"Write: the median of `Benchmark" + writeBench + "`, one Add and one Delete of a user with three roles."},
		{"held/user", buildBench, heldUnit, byteSize,
			"Held/user: the heap the stage holds per user (`" + heldUnit + "` of `Benchmark" + buildBench + "`)."},
	}, func(c column) bool { return !has(files, c.bench, c.unit) })
	head, align := "| stage | change | diff | time/op | speed-up vs previous | speed-up vs "+files[0].Name+" |", "|---|---|---:|---:|---:|---:|"
	notes := ""
	for _, c := range columns {
		head, align, notes = head+" "+c.head+" |", align+"---:|", strings.TrimSpace(notes+" "+c.note)
	}
	rows := []string{head, align}
	first, _ := files[0].Median(headline, "sec/op")
	var previous *results.File // the last step
	for i, f := range files {
		s := stage(list, f.Name)
		row := []string{f.Name, describe(root, s), "—", "—", "—", "—"}
		if chapter(root, s) != "" {
			row[0] = fmt.Sprintf("[%s](%s/README.md)", f.Name, s.Dir)
		}
		// Only a step builds on the one before it; a learner's stage and
		// the floor are compared with the first stage, or with nothing.
		step := stages.IsStep(f.Name)
		t, _ := f.Median(headline, "sec/op")
		if step && previous != nil {
			row[2] = diffSize(root, stage(list, previous.Name).Dir, s.Dir)
			if p, _ := previous.Median(headline, "sec/op"); p > 0 && t > 0 {
				row[4] = speedup(p / t)
			}
		}
		if t > 0 {
			row[3] = results.Duration(t)
			if i > 0 && first > 0 && f.Name != stages.Floor {
				row[5] = speedup(first / t)
			}
		}
		if step {
			previous = f
		}
		for _, c := range columns {
			row = append(row, median(f, c.bench, c.unit, c.format))
		}
		rows = append(rows, "| "+strings.Join(row, " | ")+" |")
	}
	return strings.Join(rows, "\n") + fmt.Sprintf("\n\nDiff: the non-test Go files that differ from the previous stage, and the lines "+
		"added plus the lines removed in them (`git diff --no-index --numstat`). "+
		"Median of %d runs of `Benchmark%s`: the lookup and the JSON encoding of the 100 users "+
		"with role admin among 10,000, in process. A speed-up is the other stage's time divided by this one's. "+
		"The floor serves bytes encoded in advance: the limit of this path, not a step, so it gets no speed-up; "+
		"a stage that is not one of the steps is compared with the first only. %s\n%s\n",
		files[0].Runs(headline, "sec/op"), headline, notes, provenance.Line(files[0].Config))
}

// column is a column of medians, for the results that have it.
type column struct {
	head, bench, unit string
	format            func(float64) string
	note              string // what it shows, said under the table
}

// has reports whether any of files measured bench in unit.
func has(files []*results.File, bench, unit string) bool {
	return slices.ContainsFunc(files, func(f *results.File) bool { return f.Runs(bench, unit) > 0 })
}

// median is f's median of bench in unit, formatted, or a dash.
func median(f *results.File, bench, unit string, format func(float64) string) string {
	if v, ok := f.Median(bench, unit); ok {
		return format(v)
	}
	return "—"
}

func count(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// byteSize formats a byte count as benchstat does: 812.0B, 1.465KiB.
func byteSize(b float64) string { return benchunit.Scale(b, benchunit.Binary) + "B" }

// speedup formats a ratio with two or three digits: 0.25x (four times
// slower), 4.7x, 16x, and 3200x.
func speedup(r float64) string {
	return strconv.FormatFloat(r, 'f', min(2, max(0, 1-int(math.Floor(math.Log10(r))))), 64) + "x"
}

// stage is the stage of list called name, or one without a folder.
func stage(list []stages.Stage, name string) stages.Stage {
	if i := slices.IndexFunc(list, func(s stages.Stage) bool { return s.Name == name }); i >= 0 {
		return list[i]
	}
	return stages.Stage{Name: name}
}

// chapter is the README.md of s, or "" if it has none, as the floor.
func chapter(root string, s stages.Stage) string {
	readme := filepath.Join(root, filepath.FromSlash(s.Dir), "README.md")
	if _, err := os.Stat(readme); err != nil || s.Dir == "" || s.Name == stages.Floor {
		return ""
	}
	return readme
}

// describe says what a stage changes: the title of its chapter ("# Stage
// 1: an index" gives "an index"), or else what its package comment says
// it is ("Command floor is the limit of ...: ..." gives "the limit of ...").
func describe(root string, s stages.Stage) string {
	readme, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.Dir), "README.md"))
	if title, _, _ := strings.Cut(string(readme), "\n"); strings.HasPrefix(title, "# ") && strings.Contains(title, ": ") {
		return strings.TrimSpace(title[strings.Index(title, ": ")+2:])
	}
	list := exec.Command("go", "list", "-f", "{{.Doc}}", "./"+s.Dir)
	list.Dir = root
	doc, err := list.Output()
	if _, what, ok := strings.Cut(string(doc), " is "); ok && err == nil && s.Dir != "" {
		what, _, _ = strings.Cut(strings.TrimSpace(what), ":")
		return strings.TrimSuffix(what, ".")
	}
	return ""
}

// diffSize says how much non-test Go code differs between the stage
// folders a and b under root: "5 files, 157 lines", the lines added plus
// the lines removed, as git diff --no-index --numstat counts them (every
// file is compared with the file of the same name, none is taken for a
// renamed one), or "?" if git cannot tell.
func diffSize(root, a, b string) string {
	diff := exec.Command("git", "diff", "--no-index", "--no-renames", "--numstat", "--", a, b)
	diff.Dir = root
	out, err := diff.Output() // exit status 1 means "they differ", unless git complains
	if e, ok := err.(*exec.ExitError); err != nil && (!ok || e.ExitCode() != 1 || len(e.Stderr) > 0) || a == "" || b == "" {
		return "?"
	}
	files, lines := 0, 0
	for _, row := range strings.Split(string(out), "\n") { // added, removed, {a => b}/x.go or a/gone.go => /dev/null
		var added, removed int
		name := path.Base(strings.TrimSuffix(row[strings.LastIndex(row, "\t")+1:], " => /dev/null"))
		if _, err := fmt.Sscan(row, &added, &removed); err == nil && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files, lines = files+1, lines+added+removed
		}
	}
	return fmt.Sprintf("%d files, %d lines", files, lines)
}
