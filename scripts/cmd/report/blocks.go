package main

import (
	"bytes"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// describe says what a stage changes, for the README's table: the title of
// its chapter ("# Stage 1: an index" gives "an index"), or else the start
// of its package comment ("Package floor is the limit of ...: ..." gives
// "the limit of ...").
func describe(root string, s stages.Stage) string {
	dir := filepath.Join(root, filepath.FromSlash(s.Dir))
	if readme, err := os.ReadFile(filepath.Join(dir, "README.md")); err == nil {
		title, _, _ := strings.Cut(string(readme), "\n")
		if _, what, ok := strings.Cut(title, ": "); ok && strings.HasPrefix(title, "# ") {
			return strings.TrimSpace(what)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil || f.Doc == nil || strings.HasSuffix(file, "_test.go") {
			continue
		}
		synopsis := new(doc.Package).Synopsis(f.Doc.Text())
		for _, prefix := range []string{"Command " + s.Name + " ", "Package " + f.Name.Name + " ", "is "} {
			synopsis = strings.TrimPrefix(synopsis, prefix)
		}
		synopsis, _, _ = strings.Cut(synopsis, ":")
		return strings.TrimSuffix(synopsis, ".")
	}
	return ""
}

// benchstatRunner runs go tool benchstat with args and returns its output.
type benchstatRunner func(args ...string) (string, error)

// goToolBenchstat runs the benchstat pinned in scripts/go.mod; the working
// directory must be in the repository's workspace.
func goToolBenchstat(args ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"tool", "benchstat"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go tool benchstat %s: %v: %s", shellQuote(args), err, stderr.String())
	}
	return string(out), nil
}

// benchstatFilter keeps the tables a chapter discusses: time and allocations.
const benchstatFilter = ".unit:(sec/op OR allocs/op)"

// benchstatBlock compares stage i of files with the stage before it and
// with the first stage (the first shows its own figures), as benchstat
// prints them.
func benchstatBlock(files []*results.File, i int, benchstat benchstatRunner) (string, error) {
	bases := []*results.File{nil}
	if i > 0 {
		bases = []*results.File{files[i-1]}
		if i > 1 {
			bases = append(bases, files[0])
		}
	}
	var b strings.Builder
	measured := []*results.File{files[i]}
	for _, base := range bases {
		args := []string{"-ignore", "pkg", "-filter", benchstatFilter}
		if base != nil {
			args = append(args, base.Name+"="+base.Path)
			measured = append(measured, base)
		}
		args = append(args, files[i].Name+"="+files[i].Path)
		out, err := benchstat(args...)
		if err != nil {
			return "", err
		}
		if base == nil {
			fmt.Fprintf(&b, "%s on its own:\n\n", files[i].Name)
		} else {
			fmt.Fprintf(&b, "%s against %s:\n\n", files[i].Name, base.Name)
		}
		fmt.Fprintf(&b, "```\n%s```\n\n`go tool benchstat %s`\n\n", tablesOnly(out), shellQuote(args))
	}
	return b.String() + provenanceOf(measured...), nil
}

// provenanceOf is the provenance of figures from files: one line if they
// were measured together, as compare.sh's are, or else one line per file,
// after its name.
func provenanceOf(files ...*results.File) string {
	lines := map[string]bool{}
	for _, f := range files {
		lines[provenance.Line(f.Config)] = true
	}
	if len(lines) == 1 {
		return provenance.Line(files[0].Config) + "\n"
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s: %s\n\n", f.Name, provenance.Line(f.Config))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// tablesOnly is benchstat's output from its first table on, without the
// configuration lines above it (the block says where it was measured in one
// line), without trailing blanks, ending in one newline.
func tablesOnly(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n "), "\n")
	first := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "│") })
	lines = lines[max(first, 0):]
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n") + "\n"
}

// plainWord is an argument that a shell takes as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./=:,+@%-]+$`)

// shellQuote is args as a command line to paste into a shell.
func shellQuote(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if !plainWord.MatchString(a) {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
