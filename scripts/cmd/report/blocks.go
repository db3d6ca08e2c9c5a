package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// block is generated text for the markers
// <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name --> of a markdown file.
type block struct{ name, content string }

// replaceBlock puts content between the markers of block name in doc.
func replaceBlock(doc, name, content string) (string, error) {
	begin, end := "<!-- BEGIN GENERATED: "+name+" -->", "<!-- END GENERATED: "+name+" -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i || strings.Count(doc, begin) != 1 || strings.Count(doc, end) != 1 {
		return "", fmt.Errorf("want one %s followed by one %s", begin, end)
	}
	return doc[:i+len(begin)] + "\n" + content + doc[j:], nil
}

// updateFile replaces the blocks in the markdown file at path, and writes
// it only if that changed it. A block without markers is an error, after
// the others have been replaced.
func updateFile(path string, blocks ...block) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(old)
	var errs []error
	for _, b := range blocks {
		replaced, err := replaceBlock(text, b.name, b.content)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		text = replaced
	}
	if text != string(old) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// stageDir is the folder of a stage's package; the floor lives in common.
func stageDir(root, stage string) string {
	if stage == "floor" {
		return filepath.Join(root, "common", "floor")
	}
	return filepath.Join(root, stage)
}

// describe says what a stage changes, for the README's table: the title of
// its chapter ("# Stage 1: an index" gives "an index"), or else the start
// of its package comment ("Package floor is the limit of ...: ..." gives
// "the limit of ...").
func describe(root, stage string) string {
	dir := stageDir(root, stage)
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
		s := new(doc.Package).Synopsis(f.Doc.Text())
		for _, prefix := range []string{"Command " + stage + " ", "Package " + f.Name.Name + " ", "is "} {
			s = strings.TrimPrefix(s, prefix)
		}
		s, _, _ = strings.Cut(s, ":")
		return strings.TrimSuffix(s, ".")
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
		return "", fmt.Errorf("go tool benchstat %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// benchstatFilter keeps the tables a chapter discusses: time and allocations.
const benchstatFilter = ".unit:(sec/op OR allocs/op)"

// benchstatBlock compares stage i of rs with the stage before it and with
// the first stage (stage 0 shows its own figures), as benchstat prints them.
func benchstatBlock(rs *resultSet, i int, benchstat benchstatRunner) (string, error) {
	s := rs.stages[i]
	bases := []*stageResult{nil}
	if i > 0 {
		bases = []*stageResult{rs.stages[i-1]}
		if i > 1 {
			bases = append(bases, rs.stages[0])
		}
	}
	var b strings.Builder
	for _, base := range bases {
		args := []string{"-ignore", "pkg", "-filter", benchstatFilter}
		if base != nil {
			args = append(args, base.name+"="+base.file)
		}
		args = append(args, s.name+"="+s.file)
		out, err := benchstat(args...)
		if err != nil {
			return "", err
		}
		if base == nil {
			fmt.Fprintf(&b, "%s on its own:\n\n", s.name)
		} else {
			fmt.Fprintf(&b, "%s against %s:\n\n", s.name, base.name)
		}
		fmt.Fprintf(&b, "```\n%s```\n\n`go tool benchstat %s`\n\n", tablesOnly(out), quoteFilter(args))
	}
	fmt.Fprintf(&b, "Measured on %s.\n", rs.machine())
	return b.String(), nil
}

// quoteFilter is args as a shell command line: the filter needs quotes.
func quoteFilter(args []string) string {
	return strings.Replace(strings.Join(args, " "), benchstatFilter, "'"+benchstatFilter+"'", 1)
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
