package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// prepare builds what a workshop's checks need, so that the first check builds nothing but the
// participant's own stage: every stage vetted, its tests built with and without the race
// detector, the commands linked, local.work written; then a check of a project stage without
// its speed, which leaves the count of tests that later checks show their progress against.
// It prints how long it took and keeps it in results/check/prepare/wall.txt.
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
	out := func(name string) []string {
		return []string{"-o", filepath.Join(bin, name) + string(filepath.Separator)}
	}
	steps := []struct {
		what string
		args []string
	}{
		{"downloading the modules", []string{"mod", "download"}},
		{"go vet of every stage", append([]string{"vet"}, dirs...)},
		{"the stages' tests, under the race detector", slices.Concat([]string{"test", "-c"}, race, out("race"), dirs)},
		{"the stages' benchmarks", slices.Concat([]string{"test", "-c"}, out("bench"), dirs)},
		{"go vet of the commands", []string{"vet", "./scripts/..."}},
	}
	for i, s := range steps {
		fmt.Printf("== prepare %d/%d: %s (%s so far)\n", i+1, len(steps)+2, s.what, harness.Elapsed(k.began))
		k.Fatal(harness.Progress(func() string { return "still " + s.what }, func() error { return harness.Go(s.args...) }))
	}
	fmt.Printf("== prepare %d/%d: the commands, linked once (%s so far)\n", len(steps)+1, len(steps)+2, harness.Elapsed(k.began))
	for _, name := range []string{"new-stage", "check", "handin", "compare", "profile", "load"} {
		k.Fatal(harness.Go("run", "./scripts/"+name, "--help")) // the go command keeps the executable: go run links it once
	}
	k.Fatal(harness.Go("run", "./scripts/new-stage", "--list")) // writes local.work
	fmt.Printf("== prepare %d/%d: a check of stage1-index without its speed, which counts the tests (%s so far)\n",
		len(steps)+2, len(steps)+2, harness.Elapsed(k.began))
	k.Fatal(harness.Go("run", "./scripts/check", "--no-compare", "stage1-index"))
	took := time.Since(k.began)
	k.Fatal(results.WriteWall(filepath.Join("results", "check", "prepare", results.WallFile), k.Header(), took))
	fmt.Printf("\ncheck: prepared in %s: every stage's tests and benchmarks built, the commands linked, local.work written\n", took.Round(time.Second))
}
