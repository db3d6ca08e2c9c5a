package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

// benchstatBlock compares stage i of files with the stage before it and
// with the first stage (the first shows its own figures), in the tables a
// chapter discusses: time and allocations.
func benchstatBlock(files []*results.File, i int) (string, error) {
	var b strings.Builder
	bases := []*results.File{nil}
	if i > 0 {
		bases = []*results.File{files[i-1]}
	}
	if i > 1 {
		bases = append(bases, files[0])
	}
	measured := []*results.File{files[i]}
	for _, base := range bases {
		args := []string{"-ignore", "pkg", "-filter", ".unit:(sec/op OR allocs/op)"}
		what := "on its own"
		if base != nil {
			args = append(args, base.Name+"="+base.Path)
			measured = append(measured, base)
			what = "against " + base.Name
		}
		tables, err := benchstat(append(args, files[i].Name+"="+files[i].Path))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %s:\n\n%s\n\n", files[i].Name, what, tables)
	}
	return b.String() + provenanceOf(measured...), nil
}

// handBlock is the block subcommand: it runs benchstat with the arguments
// after "--" and puts its tables, the command and the provenance of the
// result files among them into one generated block of a markdown file, or
// prints them, without -file.
func handBlock(args []string) error {
	flags := flag.NewFlagSet("block", flag.ContinueOnError)
	file := flags.String("file", "", "the markdown file that has the block's markers (none: print the block)")
	name := flags.String("name", "", "the block's name, as in <!-- BEGIN GENERATED: name -->")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *name == "" && *file != "" || flags.NArg() == 0 {
		return errors.New("usage: report block [-file FILE.md -name NAME] -- BENCHSTAT_ARGS...")
	}
	// The inputs are the arguments that name files, as path or label=path.
	var files []*results.File
	for _, arg := range flags.Args() {
		label, path, labelled := strings.Cut(arg, "=")
		if !labelled {
			label, path = "", arg
		}
		if info, err := os.Stat(path); err != nil || info.IsDir() {
			continue // a flag, or its value
		}
		f, err := results.Read(path)
		if err != nil {
			return err
		}
		f.Name = cmp.Or(label, f.Name)
		files = append(files, f)
	}
	if len(files) == 0 {
		return fmt.Errorf("no result file among the benchstat arguments %q", flags.Args())
	}
	tables, err := benchstat(flags.Args())
	if err != nil {
		return err
	}
	block := tables + "\n\n" + provenanceOf(files...)
	if *file == "" {
		_, err := fmt.Print(block)
		return err
	}
	if err := provenance.UpdateFile(*file, provenance.Block{Name: *name, Content: block}); err != nil {
		return err
	}
	fmt.Printf("updated %s [%s]\n", *file, *name)
	return nil
}

// benchstat runs go tool benchstat and returns its tables as a block shows
// them, followed by the command: without the configuration lines above the
// first table, which the block's provenance line says in one line.
func benchstat(args []string) (string, error) {
	out, err := goCommand(append([]string{"tool", "benchstat"}, args...)...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(out, "\n "), "\n")
	lines = lines[max(0, slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "│") })):]
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return fmt.Sprintf("```\n%s\n```\n\n`go tool benchstat %s`", strings.Join(lines, "\n"), commandLine(args)), nil
}

// provenanceOf is the provenance of figures from files: one line if they
// were measured together, as compare.sh's are, or else one line per file,
// after its name.
func provenanceOf(files ...*results.File) string {
	var each []string
	together := true
	for _, f := range files {
		together = together && provenance.Line(f.Config) == provenance.Line(files[0].Config)
		each = append(each, f.Name+": "+provenance.Line(f.Config))
	}
	if together {
		return provenance.Line(files[0].Config) + "\n"
	}
	return strings.Join(each, "\n\n") + "\n"
}

// plainWord is an argument that a shell takes as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./=:,+@%-]+$`)

// commandLine is args as a command line to paste into a shell.
func commandLine(args []string) string {
	quoted := slices.Clone(args)
	for i, a := range quoted {
		if !plainWord.MatchString(a) {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
