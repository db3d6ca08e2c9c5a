package figures

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

// Benchstat returns benchstat's tables of args, without the configuration
// lines that a provenance line says, and the command that made them.
func Benchstat(args []string) (string, error) {
	out, err := harness.GoOutput(append([]string{"tool", "benchstat"}, args...)...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(out, "\n "), "\n")
	lines = lines[max(0, slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "│") })):]
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	quoted := slices.Clone(args)
	for i, a := range quoted {
		quoted[i] = harness.Quote(a)
	}
	return fmt.Sprintf("```\n%s\n```\n\n`go tool benchstat %s`", strings.Join(lines, "\n"), strings.Join(quoted, " ")), nil
}

// BenchstatBlock is a generated block of benchstat's tables of args, with
// the command and the provenance of the result files among args (path or
// label=path): one line if they were measured together, else one per file
// after its label.
func BenchstatBlock(args []string) (string, error) {
	var files []*results.File
	for _, arg := range args {
		eq := strings.Index(arg, "=")
		label, input := arg[:max(eq, 0)], arg[eq+1:]
		if info, err := os.Stat(input); err != nil || info.IsDir() {
			continue // a flag, or its value
		}
		f, err := results.Read(input)
		if err != nil {
			return "", err
		}
		f.Name = cmp.Or(label, f.Name)
		files = append(files, f)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("no result file among the benchstat arguments %q", args)
	}
	tables, err := Benchstat(args)
	if err != nil {
		return "", err
	}
	if !slices.ContainsFunc(files, func(f *results.File) bool { return provenance.Line(f.Config) != provenance.Line(files[0].Config) }) {
		return tables + "\n\n" + provenance.Line(files[0].Config) + "\n", nil
	}
	var each []string
	for _, f := range files {
		each = append(each, f.Name+": "+provenance.Line(f.Config))
	}
	return tables + "\n\n" + strings.Join(each, "\n\n") + "\n", nil
}
