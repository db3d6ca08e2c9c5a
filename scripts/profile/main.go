// Command profile shows where a stage spends its CPU time and what it
// allocates, as pprof top tables, or where the time moved between two
// stages.
//
// Usage:
//
//	go run ./scripts/profile [flags] STAGE
//	go run ./scripts/profile --diff [flags] STAGE_A STAGE_B
//
// It runs one of the shared benchmarks of the stage under go test
// -cpuprofile and -memprofile, and prints three tables: CPU time, allocated
// bytes and allocated objects. The runtime's work counts at the function
// that asked for it, and a stage's functions are named main.NAME, so that
// the same function lines up across stages. It leaves
// cpu.pprof, mem.pprof, bench.txt and the test binary in
// results/profile/STAGE/, for go tool pprof.
//
// The flags are:
//
//	--bench NAME
//		The benchmark profiled (default BenchmarkListByRole/users=10000/matches=100).
//	--benchtime D
//		Its go test -benchtime (default 3s).
//	--top N
//		Functions per table (default 12).
//	--markdown
//		The tables in markdown, as the chapters hold them.
//	--diff
//		Two stages: where the time went from the first to the second.
//	--fresh
//		With --diff: profile again, even where the saved profiles measured the
//		code as it is now.
//
// # Examples
//
//	go run ./scripts/profile stage0-linear
//	go run ./scripts/profile --diff stage0-linear stage1-index
//	go run ./scripts/profile --bench 'BenchmarkParallel/matches=100/clients=1/parallel=on' stage3-parallel
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/profiles"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	c := harness.New("profile")
	bench := c.Flags.String("bench", "Benchmark"+results.Headline, "")
	benchtime := c.Flags.String("benchtime", "3s", "")
	top := c.Flags.Int("top", 12, "")
	markdown := c.Flags.Bool("markdown", false, "")
	diff := c.Flags.Bool("diff", false, "")
	fresh := c.Flags.Bool("fresh", false, "")
	picked := c.Parse()
	if *diff && len(picked) != 2 || !*diff && len(picked) != 1 || *top < 1 {
		c.Usage("usage: go run ./scripts/profile [options] STAGE   or   go run ./scripts/profile [options] --diff STAGE_A STAGE_B")
	}
	list, err := stages.Find(c.Root, picked...)
	if err != nil {
		c.Usage("%v", err)
	}
	began := time.Now()
	var dirs []string
	for _, s := range list { // progress on stderr: --markdown leaves only the tables on stdout
		dir := filepath.Join("results", "profile", s.Name)
		if *diff && !*fresh && reusable(dir, *bench) {
			fmt.Fprintf(os.Stderr, "== %s: reusing %s (the code it measured has not changed; --fresh profiles again)\n", s.Name, dir)
		} else {
			fmt.Fprintf(os.Stderr, "== %s: running %s for %s with the CPU and memory profilers   (%s)\n", s.Name, *bench, *benchtime, harness.Elapsed(began))
			c.Fatal(profile(c, s, dir, *bench, *benchtime))
		}
		dirs = append(dirs, dir)
	}
	if *diff {
		c.Fatal(profiles.Write(os.Stdout, dirs, []string{"cpu", "bytes"}, *top, *markdown))
		fmt.Printf("Flame graph of the change: go tool pprof -http=127.0.0.1:8083 -normalize -diff_base %s %s\n",
			filepath.Join(dirs[0], "cpu.folded.pprof"), filepath.Join(dirs[1], "cpu.folded.pprof"))
		return
	}
	c.Fatal(profiles.Write(os.Stdout, dirs, []string{"cpu", "bytes", "objects"}, *top, *markdown))
	binary, cpu := filepath.Join(dirs[0], list[0].Name+".test"), filepath.Join(dirs[0], "cpu.pprof")
	fmt.Printf("Flame graph and source lines: go tool pprof -http=127.0.0.1:8081 %s %s\n", binary, cpu)
	fmt.Printf("Who calls a function, and what it costs each caller: go tool pprof -peek %s %s %s\n",
		harness.Quote(`runtime.growslice$`), binary, cpu)
}

// profile runs benchmark bench of stage s with both profilers, into dir.
func profile(c *harness.Cmd, s stages.Folder, dir, bench, benchtime string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Each part of the name anchored: users=10000 alone would match users=100000. go test makes
	// -outputdir absolute, as the test binary runs in the stage's folder.
	anchored := "^" + strings.ReplaceAll(regexp.QuoteMeta(bench), "/", "$/^") + "$"
	out, err := exec.Command("go", "test", "-run", "^$", "-bench", anchored, "-benchtime", benchtime,
		"-benchmem", "-cpuprofile", "cpu.pprof", "-memprofile", "mem.pprof", "-outputdir", dir,
		"-o", filepath.Join(dir, s.Name+".test"), "./"+s.Dir).CombinedOutput()
	kept := resultLine.FindAllString(string(out), -1)
	if err != nil || !slices.ContainsFunc(kept, func(line string) bool { return strings.Contains(line, "/op") }) {
		return fmt.Errorf("%s\nno result of %s in %s (go test -list . ./%s lists the benchmarks)", out, bench, s.Name, s.Dir)
	}
	for _, line := range kept {
		if strings.HasPrefix(line, "Benchmark") {
			fmt.Fprint(os.Stderr, "   "+line)
		}
	}
	return os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(c.Header()+"profile-bench: "+bench+"\n"+strings.Join(kept, "")), 0o644)
}

// resultLine is a line of results or of go test's configuration.
var resultLine = regexp.MustCompile(`(?m)^(Benchmark|goos:|goarch:|pkg:|cpu:).*\n`)

// reusable says whether the profiles saved in dir are of bench, and the
// measured code has not changed since.
func reusable(dir, bench string) bool {
	saved, err := results.Read(filepath.Join(dir, "bench.txt"))
	if _, noProfile := os.Stat(filepath.Join(dir, "mem.pprof")); err != nil || noProfile != nil || saved.Config["profile-bench"] != bench {
		return false
	}
	why, err := provenance.Fresh(".", saved.Config["commit"])
	return err == nil && why == ""
}
