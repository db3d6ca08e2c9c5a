package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

// handBlock is the block subcommand: it runs benchstat with the arguments
// after "--" and puts its tables, the command and the provenance of the
// result files it read into one generated block of a markdown file (or
// prints them, without -file).
func handBlock(w io.Writer, args []string, benchstat benchstatRunner) error {
	fs := flag.NewFlagSet("block", flag.ContinueOnError)
	file := fs.String("file", "", "the markdown file that has the block's markers (none: print the block)")
	name := fs.String("name", "", "the block's name, as in <!-- BEGIN GENERATED: name -->")
	if err := fs.Parse(args); err != nil {
		return err
	}
	statArgs := fs.Args()
	if *name == "" && *file != "" || len(statArgs) == 0 {
		return fmt.Errorf("usage: report block [-file FILE.md -name NAME] -- BENCHSTAT_ARGS...")
	}
	var files []*results.File
	for _, in := range benchstatInputs(statArgs) {
		label, path, ok := strings.Cut(in, "=")
		if !ok {
			label, path = "", in
		}
		f, err := results.Read(path)
		if err != nil {
			return err
		}
		if label != "" {
			f.Name = label
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return fmt.Errorf("no result file among the benchstat arguments %q", statArgs)
	}
	out, err := benchstat(statArgs...)
	if err != nil {
		return err
	}
	content := fmt.Sprintf("```\n%s```\n\n`go tool benchstat %s`\n\n%s", tablesOnly(out), shellQuote(statArgs), provenanceOf(files...))
	if *file == "" {
		_, err := io.WriteString(w, content)
		return err
	}
	if err := provenance.UpdateFile(*file, provenance.Block{Name: *name, Content: content}); err != nil {
		return err
	}
	fmt.Fprintf(w, "updated %s [%s]\n", *file, *name)
	return nil
}

// benchstatInputs returns the inputs among benchstat's arguments, each
// "path" or "label=path": the arguments after its flags, every one of
// which takes a value (-filter X, -col=Y).
func benchstatInputs(args []string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[i+1:]
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if !strings.Contains(a, "=") {
				i++ // its value
			}
		default:
			return args[i:]
		}
	}
	return nil
}
