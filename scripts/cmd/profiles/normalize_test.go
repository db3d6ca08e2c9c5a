package main

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/pprof/profile"
)

func TestName(t *testing.T) {
	stage0 := normalizer{mainPkg: "example.com/userperf/stage0-linear"}
	for _, tc := range []struct{ in, want string }{
		{"example.com/userperf/stage0-linear.(*Store).findByRole", "main.(*Store).findByRole"},
		{"example.com/userperf/stage0-linearx.F", "stage0-linearx.F"}, // another package, not the one under test
		{"example.com/userperf/common/bench.ListByRole.func1", "common/bench.ListByRole.funcN"},
		{"main.f.func2.1", "main.f.funcN.N"},
		{"main.g.gowrap1", "main.g.gowrapN"},
		{"main.g.deferwrap3", "main.g.deferwrapN"},
		{"main.h-range12", "main.h-rangeN"},
		{"slices.Clone[go.shape.[]string,go.shape.string]", "slices.Clone[...]"},
		{`slices.Clone[go.shape.[]struct { ID string "json:\"id\"" },go.shape.struct {}]`, "slices.Clone[...]"},
		{"internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).Load", "internal/sync.(*HashTrieMap[...]).Load"},
		{"std::string::string(std::string const&)", "std::string::string"},
		{"vendor/golang.org/x/net/http2/hpack.(*Decoder).Write", "golang.org/x/net/http2/hpack.(*Decoder).Write"},
		{"encoding/json.Marshal", "encoding/json.Marshal"},
		{"runtime.mallocgc", "runtime.mallocgc"},
		{"memeqbody", "memeqbody"},
	} {
		if got := stage0.name(tc.in); got != tc.want {
			t.Errorf("name(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	stage1 := normalizer{mainPkg: "example.com/userperf/stage1-index"}
	if a, b := stage0.name("example.com/userperf/stage0-linear.encodeUsers"), stage1.name("example.com/userperf/stage1-index.encodeUsers"); a != b {
		t.Errorf("the same function in two stages: %q and %q", a, b)
	}
}

func TestMergeRuntime(t *testing.T) {
	bench := []string{"main.(*Store).ListByRole", "testing.(*B).runN", "runtime.goexit"}
	for _, tc := range []struct {
		name     string
		in, want []string
	}{
		{"the allocator under an append is growslice",
			append([]string{"runtime.memclrNoHeapPointers", "runtime.mallocgc", "runtime.growslice", "main.encodeUsers"}, bench...),
			append([]string{"runtime.growslice", "main.encodeUsers"}, bench...)},
		{"background marking is gcBgMarkWorker, not goexit or systemstack",
			[]string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker.funcN", "runtime.systemstack", "runtime.gcBgMarkWorker", "runtime.goexit"},
			[]string{"runtime.gcBgMarkWorker"}},
		{"string comparisons belong to the scan",
			append([]string{"memeqbody", "runtime.memequal", "main.(*Store).findByRole"}, bench...),
			append([]string{"main.(*Store).findByRole"}, bench...)},
		{"a preemption belongs to the function it stopped",
			append([]string{"runtime.asyncPreempt", "main.(*Store).findByRole"}, bench...),
			append([]string{"main.(*Store).findByRole"}, bench...)},
		{"a map lookup is the runtime function the code called",
			[]string{"internal/runtime/maps.(*Map).getWithKey", "runtime.mapaccess1_faststr", "main.f"},
			[]string{"runtime.mapaccess1_faststr", "main.f"}},
		{"a copy with no caller to fold into stays",
			[]string{"runtime.memmove"},
			[]string{"runtime.memmove"}},
		{"a stack of roots only is named after the outermost",
			[]string{"runtime.mstart1", "runtime.mstart0", "runtime.mstart"},
			[]string{"runtime.mstart"}},
		{"an address without a name is not the runtime's",
			[]string{"0x4012a0", "main.f"},
			[]string{"0x4012a0", "main.f"}},
		{"code outside the runtime is untouched",
			[]string{"encoding/json.Marshal", "runtime/pprof.StartCPUProfile", "main.main"},
			[]string{"encoding/json.Marshal", "runtime/pprof.StartCPUProfile", "main.main"}},
	} {
		if got := mergeRuntime(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// names is the set of function names in p, sorted.
func names(p *profile.Profile) []string {
	var ns []string
	for _, f := range p.Function {
		ns = append(ns, f.Name)
	}
	slices.Sort(ns)
	return ns
}

func TestNormalizeLinesUpStages(t *testing.T) {
	a := normalizer{"example.com/userperf/stage0-linear"}.normalize(stageCPU("stage0-linear"))
	b := normalizer{"example.com/userperf/stage9-copy"}.normalize(stageCPU("stage9-copy"))
	if !slices.Equal(names(a), names(b)) {
		t.Errorf("the same code in two stages normalizes to different functions:\n%q\n%q", names(a), names(b))
	}
	want := []string{"common/bench.ListByRole.funcN", "main.(*Store).ListByRole", "main.(*Store).findByRole",
		"main.encodeUsers", "runtime.gcBgMarkWorker", "runtime.goexit", "runtime.growslice", "testing.(*B).runN"}
	if !slices.Equal(names(a), want) {
		t.Errorf("functions\n got %q\nwant %q", names(a), want)
	}
	for _, f := range a.Function {
		if f.Name == "main.encodeUsers" && f.Filename != "main/file.go" {
			t.Errorf("file of main.encodeUsers = %q, want main/file.go (no directories of the machine)", f.Filename)
		}
	}
}

func TestNormalizeKeepsTotalsAndWritesAValidProfile(t *testing.T) {
	raw := stageMem("stage0-linear")
	p := normalizer{"example.com/userperf/stage0-linear"}.normalize(raw)
	for i := range raw.SampleType {
		var before, after int64
		for _, s := range raw.Sample {
			before += s.Value[i]
		}
		for _, s := range p.Sample {
			after += s.Value[i]
		}
		if before != after {
			t.Errorf("%s: total %d before normalizing, %d after", raw.SampleType[i].Type, before, after)
		}
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("go tool pprof could not read the normalized profile: %v", err)
	}
	if !slices.Contains(names(back), "slices.Clone[...]") || !slices.Contains(names(back), "main.clone") {
		t.Errorf("inlined frames lost: %q", names(back))
	}
}
