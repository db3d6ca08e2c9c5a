package main

import (
	"strings"
	"testing"
)

// stage0Shares is the fixture's CPU time per normalized function.
func stage0Shares(t *testing.T) shares {
	t.Helper()
	p := normalizer{"example.com/userperf/stage0-linear"}.normalize(stageCPU("stage0-linear"))
	s, err := sumByFunction(p, cpuTime)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSumByFunction(t *testing.T) {
	s := stage0Shares(t)
	if s.total != 100e6 {
		t.Errorf("total = %d, want 100ms", s.total)
	}
	want := []row{ // by flat: the scan with its comparisons and preemptions
		{"main.(*Store).findByRole", 65e6, 65e6},
		{"runtime.growslice", 20e6, 20e6},
		{"runtime.gcBgMarkWorker", 10e6, 10e6},
		{"main.encodeUsers", 5e6, 25e6},
		{"common/bench.ListByRole.funcN", 0, 90e6}, // a tie with ListByRole, by name
	}
	for i, w := range want {
		if s.rows[i] != w {
			t.Errorf("row %d = %+v, want %+v", i, s.rows[i], w)
		}
	}
}

func TestSumByFunctionCountsRecursionOnce(t *testing.T) {
	p := rawProfile(cpuTypes, "/src", sample{[]string{"main.walk", "main.walk", "main.walk", "main.main"}, []int64{1, 7}})
	s, err := sumByFunction(normalizer{}.normalize(p), cpuTime)
	if err != nil {
		t.Fatal(err)
	}
	if s.rows[0] != (row{"main.walk", 7, 7}) {
		t.Errorf("recursive function: %+v, want flat 7 and cum 7", s.rows[0])
	}
}

func TestSumByFunctionWantsTheSampleType(t *testing.T) {
	if _, err := sumByFunction(stageMem("stage0-linear"), cpuTime); err == nil {
		t.Error("CPU time from a memory profile: no error")
	}
}

func TestTopRows(t *testing.T) {
	s := shares{total: 10000, rows: []row{{"a", 5000, 9000}, {"b", 3000, 3000}, {"c", 1996, 1996}, {"d", 4, 4}, {"e", 0, 9000}}}
	top, other, others := s.topRows(2)
	if len(top) != 2 || top[0].name != "a" || top[1].name != "b" || other != 2000 || others != 2 {
		t.Errorf("topRows(2) = %v, other %d in %d functions; want a, b and 2000 in 2", top, other, others)
	}
	top, other, others = s.topRows(10)
	if len(top) != 3 || other != 4 || others != 1 {
		t.Errorf("topRows(10) = %v, other %d in %d; want d (0.04%%) under other", top, other, others)
	}
}

func TestWriteTop(t *testing.T) {
	s := stage0Shares(t)
	var text, md strings.Builder
	writeTop(&text, s, 3, false)
	writeTop(&md, s, 3, true)
	wantText := `   flat%     cum%  function
  65.00%   65.00%  main.(*Store).findByRole
  20.00%   20.00%  runtime.growslice
  10.00%   10.00%  runtime.gcBgMarkWorker
   5.00%           (1 other function)
`
	wantMD := "| flat % | cum % | function |\n|---:|---:|:---|\n" +
		"| 65.0 | 65.0 | `main.(*Store).findByRole` |\n" +
		"| 20.0 | 20.0 | `runtime.growslice` |\n" +
		"| 10.0 | 10.0 | `runtime.gcBgMarkWorker` |\n" +
		"| 5.0 | | 1 other function |\n"
	if text.String() != wantText {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), wantText)
	}
	if md.String() != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", md.String(), wantMD)
	}
}
