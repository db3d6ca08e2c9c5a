// Command profiles prints the tables of scripts/profile.sh from the profiles
// that it saved under results/profile/<stage>/:
//
//	profiles top  [-n 12] [-markdown] [-tables cpu,bytes,objects] DIR
//	profiles diff [-n 15] [-markdown] [-tables cpu,bytes] DIR_A DIR_B
//
// top lists the functions that take the time and allocate the memory of one
// stage, like the case study's perf report. diff lines two stages up and
// lists where the time (or the allocation) moved. Function names are
// normalized first, so that the same function has the same name in every
// stage's binary (normalize.go); diff also writes the normalized profiles,
// cpu.normalized.pprof and mem.normalized.pprof, for go tool pprof -diff_base.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"

	"example.com/userperf/scripts/internal/provenance"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "top":
		err = top(os.Stdout, os.Args[2:])
	case "diff":
		err = diff(os.Stdout, os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "profiles:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: profiles top [-n N] [-markdown] [-tables cpu,bytes,objects] DIR\n"+
		"       profiles diff [-n N] [-markdown] [-tables cpu,bytes] DIR_A DIR_B")
	os.Exit(2)
}

// options are the flags both subcommands take.
type options struct {
	n        int
	markdown bool
	measures []measure
}

// parseFlags parses args and checks that there are want directories.
func parseFlags(name string, args []string, n int, tables string, want int) (options, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var o options
	fs.IntVar(&o.n, "n", n, "functions per table")
	fs.BoolVar(&o.markdown, "markdown", false, "print markdown tables")
	fs.StringVar(&tables, "tables", tables, "tables to print, comma-separated: cpu, bytes, objects")
	if err := fs.Parse(args); err != nil {
		return o, nil, err
	}
	if fs.NArg() != want {
		return o, nil, fmt.Errorf("%s wants %d profile directories, got %d", name, want, fs.NArg())
	}
	byName := map[string]measure{"cpu": cpuTime, "bytes": allocatedBytes, "objects": allocatedObjects}
	for _, t := range strings.Split(tables, ",") {
		m, ok := byName[t]
		if !ok {
			return o, nil, fmt.Errorf("unknown table %q: want cpu, bytes or objects", t)
		}
		o.measures = append(o.measures, m)
	}
	return o, fs.Args(), nil
}

// profile is the run's profile that holds m.
func (r *run) profile(m measure) *profile.Profile {
	if m == cpuTime {
		return r.cpu
	}
	return r.mem
}

// top prints the top tables of one run.
func top(w io.Writer, args []string) error {
	o, dirs, err := parseFlags("top", args, 12, "cpu,bytes,objects", 1)
	if err != nil {
		return err
	}
	r, err := loadRun(dirs[0])
	if err != nil {
		return err
	}
	for _, m := range o.measures {
		s, err := sumByFunction(r.profile(m), m)
		if err != nil {
			return fmt.Errorf("%s: %w", dirs[0], err)
		}
		name, colon := r.benchmark, "\n"
		if o.markdown {
			name, colon = "`"+name+"`", ":\n\n"
		}
		fmt.Fprintf(w, "%s of %s in %s (%s), %s%s", m.title, name, r.stage, perOp(r.secPerOp), describe(r.profile(m), m, s.total), colon)
		writeTop(w, s, o.n, o.markdown)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s\n%s\n", legend, provenance.Line(r.config))
	return nil
}

// diff prints where time and allocations moved from one run to another, and
// writes both runs' normalized profiles next to the originals.
func diff(w io.Writer, args []string) error {
	o, dirs, err := parseFlags("diff", args, 15, "cpu,bytes", 2)
	if err != nil {
		return err
	}
	var runs [2]*run
	for i, dir := range dirs {
		if runs[i], err = loadRun(dir); err != nil {
			return err
		}
		for name, p := range map[string]*profile.Profile{"cpu": runs[i].cpu, "mem": runs[i].mem} {
			if err := writeProfile(filepath.Join(dir, name+".normalized.pprof"), p); err != nil {
				return err
			}
		}
	}
	a, b := runs[0], runs[1]
	for _, m := range o.measures {
		sa, err := sumByFunction(a.profile(m), m)
		if err != nil {
			return fmt.Errorf("%s: %w", a.stage, err)
		}
		sb, err := sumByFunction(b.profile(m), m)
		if err != nil {
			return fmt.Errorf("%s: %w", b.stage, err)
		}
		fmt.Fprintf(w, "%s, flat share in %s (%s) and in %s (%s), largest change first:\n",
			m.title, a.stage, perOp(a.secPerOp), b.stage, perOp(b.secPerOp))
		if o.markdown {
			fmt.Fprintln(w)
		}
		writeMoves(w, a.stage, b.stage, moves(sa, sb), o.n, o.markdown)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Each share is a percentage of its own profile's total: a function can keep its share while its time shrinks with the total.\n%s\n", legend)
	fmt.Fprintf(w, "%s: %s\n%s: %s\n", a.stage, provenance.Line(a.config), b.stage, provenance.Line(b.config))
	return nil
}
