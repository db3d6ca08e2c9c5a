package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// warmed are the commands a participant runs, each run once with --help so that the go command
// keeps its executable: go run links none of them again.
var warmed = []string{"new-stage", "check", "handin", "compare", "profile", "load"}

// prepare builds what a workshop's checks need, so that the first check builds nothing but the
// participant's own stage: every module's packages vetted, every stage's tests built with and
// without the race detector (the race runtime and every dependency compiled), the commands
// linked, local.work written; then one check of a project stage, without its speed, which runs
// the tests once and leaves the count that later checks estimate their progress from. It
// prints how long it took and keeps it in results/check/prepare/wall.txt.
func (k *check) prepare() {
	list, err := stages.List(k.Root)
	k.Fatal(err)
	var dirs []string
	for _, s := range list {
		dirs = append(dirs, "./"+s.Dir)
	}
	bin, err := os.MkdirTemp("", "userperf-prepare-")
	k.Fatal(err)
	k.Cleanup(func() { os.RemoveAll(bin) })
	race := []string{"-race"}
	if err := harness.RaceCompiler(); err != nil {
		fmt.Printf("check: %v; preparing without it\n", err)
		race = nil
	}
	steps := []struct {
		what string
		args []string
	}{
		{"downloading the modules", []string{"mod", "download"}},
		{"go vet of every stage", append([]string{"vet"}, dirs...)},
		{"the stages' tests, under the race detector", append(append(append([]string{"test", "-c"}, race...), "-o", filepath.Join(bin, "race")+string(filepath.Separator)), dirs...)},
		{"the stages' benchmarks", append([]string{"test", "-c", "-o", filepath.Join(bin, "bench") + string(filepath.Separator)}, dirs...)},
		{"go vet of the commands", []string{"vet", "./scripts/..."}},
	}
	for i, s := range steps {
		fmt.Printf("== prepare %d/%d: %s (%s so far)\n", i+1, len(steps)+2, s.what, harness.Elapsed(k.start))
		k.Fatal(harness.Progress(func() string { return "still " + s.what }, func() error { return harness.Go(s.args...) }))
	}
	fmt.Printf("== prepare %d/%d: the commands, linked once (%s so far)\n", len(steps)+1, len(steps)+2, harness.Elapsed(k.start))
	for _, name := range warmed {
		k.Fatal(harness.Go("run", "./scripts/"+name, "--help"))
	}
	k.Fatal(harness.Go("run", "./scripts/new-stage", "--list")) // writes local.work
	fmt.Printf("== prepare %d/%d: a check of stage1-index without its speed, which counts the tests (%s so far)\n",
		len(steps)+2, len(steps)+2, harness.Elapsed(k.start))
	k.Fatal(harness.Go("run", "./scripts/check", "--no-compare", "stage1-index"))
	took := time.Since(k.start)
	k.Fatal(results.WriteWall(filepath.Join("results", "check", "prepare", results.WallFile), k.Header(), took))
	fmt.Printf("\ncheck: prepared in %s: every stage's tests and benchmarks built, the commands linked, local.work written\n", took.Round(time.Second))
}
