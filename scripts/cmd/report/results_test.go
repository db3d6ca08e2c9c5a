package main

import (
	"maps"
	"slices"
	"testing"
)

func TestReadResultSet(t *testing.T) {
	rs := readFixture(t)
	if got, want := stageNames(rs), []string{"stage0-linear", "stage1-index", "floor"}; !slices.Equal(got, want) {
		t.Errorf("stages %q, want %q (in order, the floor last, machine.txt and benchstat.txt skipped)", got, want)
	}
	s := rs.stage("stage1-index")
	if v, ok := s.median("ListByRole/users=10000/matches=100", "sec/op"); !ok || v != 50e-6 {
		t.Errorf("median = %v, %v; want 50µs (ns/op tidied to seconds, -2 dropped from the name)", v, ok)
	}
	if v, _ := s.median("ListByRole/users=10000/matches=1000", "allocs/op"); v != 2023 {
		t.Errorf("allocs/op = %v, want 2023", v)
	}
	if _, ok := s.median("ListByRole/users=5/matches=100", "sec/op"); ok {
		t.Error("a benchmark that did not run has a median")
	}
	if got := rs.machine(); got != "Test CPU, 2 cores, go1.26.8, 2026-01-02T03:04:05Z, by `./scripts/compare.sh --rounds 3`" {
		t.Errorf("machine() = %q", got)
	}
}

func TestReadResultSetWithoutStages(t *testing.T) {
	if _, err := readResultSet(t.TempDir()); err == nil {
		t.Error("an empty directory: no error")
	}
}

func TestMedianOfEvenCount(t *testing.T) {
	s := &stageResult{samples: map[measurement][]float64{{"B", "sec/op"}: {4, 1, 3, 2}}}
	if v, _ := s.median("B", "sec/op"); v != 2.5 {
		t.Errorf("median of 1..4 = %v, want 2.5", v)
	}
}

func TestCompareStages(t *testing.T) {
	names := []string{"floor", "stage10-x", "peers", "stage2-y", "stage0-z"}
	slices.SortFunc(names, compareStages)
	if want := []string{"stage0-z", "stage2-y", "stage10-x", "peers", "floor"}; !slices.Equal(names, want) {
		t.Errorf("order %q, want %q", names, want)
	}
}

func TestNameKeys(t *testing.T) {
	base, keys := nameKeys("HTTPFixedRate/rate=100/matches=1000")
	if base != "HTTPFixedRate" || !maps.Equal(keys, map[string]string{"rate": "100", "matches": "1000"}) {
		t.Errorf("nameKeys = %q, %v", base, keys)
	}
}
