// Command profiles prints the tables of scripts/profile.sh with go tool pprof -top,
// from the folded profiles (fold.go) of what it saved in results/profile/<stage>/:
//
//	profiles top  [-n 12] [-markdown] [-tables cpu,bytes,objects] DIR
//	profiles diff [-n 12] [-markdown] [-tables cpu,bytes,objects] DIR_A DIR_B
//
// diff adds -normalize -diff_base: how each function's share changed from A to B.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

// tables are the profile and pprof's -sample_index of each table.
var tables = map[string]struct{ file, sampleIndex, title string }{
	"cpu":     {"cpu", "cpu", "CPU time"},
	"bytes":   {"mem", "alloc_space", "Allocated bytes"},
	"objects": {"mem", "alloc_objects", "Allocated objects"},
}

const legend = "The runtime's work for a function (allocating, ==, copy, preemption) counts at that function, " +
	"but for append growing a slice (runtime.growslice, with what it allocates); the collector's background " +
	"marking (runtime.gcBgMarkWorker) and sweeping (runtime.bgsweep), which no code here calls, count as one " +
	"row each. go tool pprof on cpu.pprof shows the runtime unfolded."

func main() {
	cmd, args := strings.Join(os.Args[1:min(2, len(os.Args))], ""), os.Args[min(2, len(os.Args)):]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	n := fs.Int("n", 12, "functions per table")
	markdown := fs.Bool("markdown", false, "print markdown")
	names := fs.String("tables", "cpu,bytes,objects", "tables to print: cpu, bytes, objects")
	fs.Parse(args)
	if want := map[string]int{"top": 1, "diff": 2}[cmd]; want == 0 || fs.NArg() != want {
		fmt.Fprintln(os.Stderr, "usage: profiles top [flags] DIR   or   profiles diff [flags] DIR_A DIR_B")
		os.Exit(2)
	}
	if err := write(os.Stdout, fs.Args(), strings.Split(*names, ","), *n, *markdown); err != nil {
		fmt.Fprintln(os.Stderr, "profiles:", err)
		os.Exit(1)
	}
}

// write writes the tables of one stage, or of the change from one to
// another, after folding the profiles in dirs; bench.txt there names the
// benchmark, its package, the machine and the commit.
func write(w io.Writer, dirs, names []string, n int, markdown bool) error {
	var configs []map[string]string
	for _, dir := range dirs {
		bench, err := results.Read(filepath.Join(dir, "bench.txt"))
		if err != nil {
			return err
		}
		for _, file := range []string{"cpu", "mem"} {
			if err := foldFile(filepath.Join(dir, file+".pprof"), folded(dir, file), bench.Config["pkg"]); err != nil {
				return err
			}
		}
		configs = append(configs, bench.Config)
	}
	a, b := dirs[0], dirs[len(dirs)-1]
	bench := configs[0]["profile-bench"]
	if markdown {
		bench = "`" + bench + "`"
	}
	for _, name := range names {
		t, ok := tables[name]
		if !ok {
			return fmt.Errorf("unknown table %q: want cpu, bytes or objects", name)
		}
		args := []string{"-sample_index=" + t.sampleIndex, fmt.Sprint("-nodecount=", n), folded(b, t.file)}
		title := fmt.Sprintf("%s of %s in %s", t.title, bench, filepath.Base(b))
		if a != b {
			args = append([]string{"-normalize", "-diff_base=" + folded(a, t.file)}, args...)
			title = fmt.Sprintf("%s of %s, change of each function's share from %s to %s", t.title, bench, filepath.Base(a), filepath.Base(b))
		}
		total, table, err := pprofTop(args...)
		if err != nil {
			return err
		}
		if markdown && a == b { // pprof's percentages of a change have no sign: those stay its text
			fmt.Fprintf(w, "%s, %s in all:\n\n", title, total)
			writeMarkdown(w, table)
		} else {
			fmt.Fprintf(w, "%s, %s in all\n%s\n", title, total, table)
		}
	}
	fmt.Fprintln(w, legend)
	for _, config := range configs {
		fmt.Fprintln(w, provenance.Line(config))
	}
	return nil
}

// folded is the folded form, next to the original, of the profile file cpu or mem in dir.
func folded(dir, file string) string { return filepath.Join(dir, file+".folded.pprof") }

// topTable is what go tool pprof -top prints from its summary line, "Showing
// nodes accounting for 4.11s, 81.07% of 5.07s total", on: the total, and the
// table, a header line and one line per function.
var topTable = regexp.MustCompile(`(?s)accounting for [^\n]* of (\S+) total\n.*?( +flat .*)`)

// pprofTop runs go tool pprof -top with args. -nodefraction=0 keeps pprof
// from dropping the small functions before it picks the top ones.
func pprofTop(args ...string) (total, table string, err error) {
	cmd := exec.Command("go", append([]string{"tool", "pprof", "-top", "-nodefraction=0"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	m := topTable.FindSubmatch(out)
	if err != nil || m == nil {
		return "", "", fmt.Errorf("go tool pprof %s printed no table (%v)", strings.Join(args, " "), err)
	}
	return string(m[1]), string(m[2]), nil
}

// writeMarkdown writes the shares of pprof's table in markdown, and the
// share of the functions that it leaves out (100% less the last sum%).
func writeMarkdown(w io.Writer, table string) {
	fmt.Fprint(w, "| flat % | cum % | function |\n|---:|---:|:---|\n")
	shown := 0.0
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		f := strings.Fields(line) // flat, flat%, sum%, cum, cum%, function, maybe (inline)
		shown, _ = strconv.ParseFloat(strings.TrimSuffix(f[2], "%"), 64)
		name := strings.Join(append([]string{"`" + f[5] + "`"}, f[6:]...), " ")
		fmt.Fprintf(w, "| %s | %s | %s |\n", strings.TrimSuffix(f[1], "%"), strings.TrimSuffix(f[4], "%"), name)
	}
	if shown < 99.995 {
		fmt.Fprintf(w, "| %.2f | | all other functions |\n", 100-shown)
	}
	fmt.Fprintln(w)
}
