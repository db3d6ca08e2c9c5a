// Command serialize makes the measurements of the serialization chapters
// (stages 3 and 4) in one run, and writes their blocks.
//
// Usage:
//
//	go run ./scripts/serialize [--print] [--rounds N] [--benchtime D]
//
// Each round runs BenchmarkParallel of stage3-parallel and of stage4-append
// (parallel chunks against one goroutine, one client at a time and 16 at
// once), on an idle machine and again while this command keeps every core
// busy, then BenchmarkEncode and BenchmarkReservedBody of ./peers (stage 4's
// encoder against other JSON libraries). It keeps the samples in
// results/serialize/<stamp>/ and rewrites the generated blocks parallel and
// reserved of docs/stage3-parallel.md and parallel and peers of
// docs/stage4-append.md. An interrupted run keeps nothing.
//
// The flags are:
//
//	--print
//		Print the blocks instead; no tracked file changes.
//	--rounds N
//		Rounds of samples (default 10).
//	--benchtime D
//		The go test -benchtime of one sample (default 100ms).
//
// # Example
//
//	go run ./scripts/serialize --print --rounds 6
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"example.com/userperf/scripts/internal/figures"
	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

func main() {
	c := harness.New("serialize")
	rounds := c.Flags.Int("rounds", 10, "")
	benchtime := c.Flags.String("benchtime", "100ms", "")
	printOnly := c.Flags.Bool("print", false, "")
	if args := c.Parse(); len(args) > 0 {
		c.Usage("unknown argument %s (see --help)", args[0])
	}
	if *rounds < 6 {
		c.Usage("benchstat needs at least 6 samples for a confidence interval; use --rounds 6 or more")
	}
	run := c.NewRun("serialize", *rounds)
	run.Build("stage3-parallel", "stage4-append", "peers")
	header := c.Header() + fmt.Sprintf("serialize-settings: rounds=%d, benchtime=%s\n", *rounds, *benchtime)
	file := func(name string) string { return filepath.Join(run.Dir, name+".txt") }
	c.Fatal(os.WriteFile(file("peers"), []byte(header), 0o644))
	c.Fatal(os.WriteFile(file("reserved"), []byte(header), 0o644))
	for _, load := range []string{"idle", "busy"} {
		c.Fatal(os.WriteFile(file("stage3-"+load), []byte(header+"load: "+load+"\nencoder: encoding/json\n"), 0o644))
		c.Fatal(os.WriteFile(file("stage4-"+load), []byte(header+"load: "+load+"\nencoder: append\n"), 0o644))
	}
	for round := 1; round <= *rounds; round++ {
		run.Bench(round, "stage3-parallel", "^BenchmarkParallel$", *benchtime, file("stage3-idle"), "stage3, idle")
		run.Bench(round, "stage4-append", "^BenchmarkParallel$", *benchtime, file("stage4-idle"), "stage4, idle")
		stop := harness.HoldCores()
		run.Bench(round, "stage3-parallel", "^BenchmarkParallel$", *benchtime, file("stage3-busy"), "stage3, busy")
		run.Bench(round, "stage4-append", "^BenchmarkParallel$", *benchtime, file("stage4-busy"), "stage4, busy")
		stop()
		run.Bench(round, "peers", "^BenchmarkEncode$", *benchtime, file("peers"), "peers")
		run.Bench(round, "peers", "^BenchmarkReservedBody$", *benchtime, file("reserved"), "peers, reserved body")
	}
	run.Keep()
	for _, idle := range []string{"stage3-idle", "stage4-idle"} {
		f, err := results.Read(file(idle))
		c.Fatal(err)
		if warning := busyIdle(f); warning != "" {
			fmt.Fprintf(os.Stderr, "serialize: warning: %s\n", warning)
		}
	}

	block := func(page, name string, args ...string) {
		content, err := figures.BenchstatBlock(args) // this command measured them and writes the block
		c.Fatal(err)
		if *printOnly {
			fmt.Printf("\n== %s, block %s\n%s", page, name, content)
		} else {
			c.Fatal(provenance.UpdateFile(filepath.FromSlash(page), provenance.Block{Name: name, Content: content}))
		}
	}
	parallel := []string{"-filter", ".unit:(sec/op OR cpu-sec/op OR cores)", "-row", "load,/matches,/clients", "-col", "/parallel"}
	stage3 := []string{file("stage3-idle"), file("stage3-busy")}
	block("docs/stage3-parallel.md", "parallel", slices.Concat(parallel, stage3)...)
	block("docs/stage3-parallel.md", "reserved", "-filter", ".unit:(cpu-sec/op OR B/op OR allocs/op)", "-row", "/matches", "-col", "/way", file("reserved"))
	block("docs/stage4-append.md", "parallel", slices.Concat([]string{"-table", "encoder"}, parallel, stage3,
		[]string{file("stage4-idle"), file("stage4-busy")})...)
	block("docs/stage4-append.md", "peers", "-filter", ".unit:(sec/op OR allocs/op)", "-row", "/matches", "-col", "/encoder", file("peers"))
	fmt.Println("results:", run.Dir)
	c.Exit(0) // the clean-ups remove the binaries
}

// idleCores is the fewest cores, CPU time over wall time, that a run labelled idle may get: the
// benchmarks have every core to themselves there, so a median well under one core means other
// programs took them, and idle and busy measured much the same machine.
const idleCores = 0.75

// busyIdle is the warning that f, a run labelled idle, deserves, or "": the first benchmark whose
// median cores fell under idleCores, and what to do.
func busyIdle(f *results.File) string {
	for _, m := range f.Measurements() {
		if cores := results.Median(f.Values(m.Bench, m.Unit)); m.Unit == "cores" && cores < idleCores {
			return fmt.Sprintf("the run labelled idle got %.2f cores at %s (under %.2f): the machine was busy, so the idle figures "+
				"are not idle; close other programs and run again, or add rounds (--rounds 20)", cores, m.Bench, idleCores)
		}
	}
	return ""
}
