package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// sample is one stack of a fixture profile, leaf first, and its values.
// A frame "inner+outer" is a location where inner was inlined into outer.
type sample struct {
	stack  []string
	values []int64
}

// cpuTypes and memTypes are the sample types runtime/pprof writes.
var (
	cpuTypes = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
	memTypes = []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}}
)

// rawProfile builds a profile the way a test binary's would look: one
// location per frame at a made-up address in one mapping, and functions
// whose files lie under dir, as they do on the machine that built them.
func rawProfile(types []*profile.ValueType, dir string, samples ...sample) *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x800000, File: dir + "/stage.test", HasFunctions: true}
	p := &profile.Profile{SampleType: types, Mapping: []*profile.Mapping{m}, Period: 1, DurationNanos: 3e9}
	if types[1].Type == "cpu" {
		p.PeriodType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
		p.Period = 10_000_000
	}
	functions := map[string]*profile.Function{}
	locations := map[string]*profile.Location{}
	for _, s := range samples {
		var stack []*profile.Location
		for _, frame := range s.stack {
			loc := locations[frame]
			if loc == nil {
				loc = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: 0x401000 + uint64(len(p.Location))*0x40}
				for _, name := range strings.Split(frame, "+") {
					fn := functions[name]
					if fn == nil {
						fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: dir + "/file.go"}
						functions[name] = fn
						p.Function = append(p.Function, fn)
					}
					loc.Line = append(loc.Line, profile.Line{Function: fn, Line: 10})
				}
				locations[frame] = loc
				p.Location = append(p.Location, loc)
			}
			stack = append(stack, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: s.values})
	}
	if err := p.CheckValid(); err != nil {
		panic(err)
	}
	return p
}

// stageCPU is a CPU profile shaped like stage0-linear's: a scan with its
// string comparisons and preemptions, an encoder that grows its buffer, and
// the garbage collector. In ms: scan 50+10+5, encoder 5+20, GC 10: 100.
func stageCPU(stage string) *profile.Profile {
	pkg := "example.com/userperf/" + stage
	bench := []string{pkg + ".(*Store).ListByRole", "example.com/userperf/common/bench.ListByRole.func1", "testing.(*B).runN", "runtime.goexit"}
	ms := func(n int64) []int64 { return []int64{n, n * 1e6} }
	return rawProfile(cpuTypes, "/home/learner/userperf/"+stage,
		sample{append([]string{pkg + ".(*Store).findByRole"}, bench...), ms(50)},
		sample{append([]string{"memeqbody", pkg + ".(*Store).findByRole"}, bench...), ms(10)},
		sample{append([]string{"runtime.asyncPreempt", pkg + ".(*Store).findByRole"}, bench...), ms(5)},
		sample{append([]string{pkg + ".encodeUsers"}, bench...), ms(5)},
		sample{append([]string{"runtime.memclrNoHeapPointers", "runtime.mallocgc", "runtime.growslice", pkg + ".encodeUsers"}, bench...), ms(20)},
		sample{[]string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker.func2", "runtime.systemstack", "runtime.gcBgMarkWorker", "runtime.goexit"}, ms(10)},
	)
}

// indexCPU is stage0's profile after an index replaced the scan: the same
// encoder and GC, and a map lookup instead of the scan.
func indexCPU(stage string) *profile.Profile {
	pkg := "example.com/userperf/" + stage
	bench := []string{pkg + ".(*Store).ListByRole", "example.com/userperf/common/bench.ListByRole.func1", "testing.(*B).runN", "runtime.goexit"}
	ms := func(n int64) []int64 { return []int64{n, n * 1e6} }
	return rawProfile(cpuTypes, "/home/learner/userperf/"+stage,
		sample{append([]string{"internal/runtime/maps.(*Map).getWithKey", "runtime.mapaccess1_faststr", pkg + ".(*Store).findByRole"}, bench...), ms(2)},
		sample{append([]string{pkg + ".encodeUsers"}, bench...), ms(8)},
		sample{append([]string{"runtime.mallocgc", "runtime.growslice", pkg + ".encodeUsers"}, bench...), ms(20)},
		sample{[]string{"runtime.scanobject", "runtime.gcBgMarkWorker", "runtime.goexit"}, ms(10)},
	)
}

// stageMem is a memory profile: the encoder, and clones inlined into the scan.
func stageMem(stage string) *profile.Profile {
	pkg := "example.com/userperf/" + stage
	return rawProfile(memTypes, "/home/learner/userperf/"+stage,
		sample{[]string{pkg + ".encodeUsers", pkg + ".(*Store).ListByRole"}, []int64{10, 6000}},
		sample{[]string{"slices.Clone[go.shape.[]string,go.shape.string]+" + pkg + ".clone+" + pkg + ".(*Store).findByRole", pkg + ".(*Store).ListByRole"}, []int64{30, 4000}},
	)
}

// writeRun writes what profile.sh leaves in results/profile/<stage>.
func writeRun(t *testing.T, root, stage string, cpu, mem *profile.Profile) string {
	t.Helper()
	dir := filepath.Join(root, stage)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bench := strings.Join([]string{
		"machine-cpu: Test CPU", "machine-cores: 2", "go-version: go1.26.8", "date: 2026-01-02T03:04:05Z",
		"commit: 8899ddb", "command: ./scripts/profile.sh " + stage, "profile-bench: BenchmarkListByRole/users=10000/matches=100",
		"goos: linux", "goarch: amd64", "pkg: example.com/userperf/" + stage, "cpu: Test CPU",
		"BenchmarkListByRole/users=10000/matches=100-2   1000   250000 ns/op   110000 B/op   222 allocs/op", "",
	}, "\n")
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*profile.Profile{"cpu.pprof": cpu, "mem.pprof": mem} {
		if err := writeProfile(filepath.Join(dir, name), p); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
