package main

import (
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/bench"
)

// The floor runs the suites every stage runs, so that `go run ./scripts/compare
// floor` finds the same benchmark names and it is checked against the same
// contract.

func TestAPI(t *testing.T) { apitest.Run(t, New) }

func TestDifferential(t *testing.T) { apitest.Differential(t, New) }

func FuzzDifferential(f *testing.F) { apitest.FuzzDifferential(f, New) }

func BenchmarkListByRole(b *testing.B) { bench.ListByRole(b, New) }

func BenchmarkServeHTTP(b *testing.B) { bench.ServeHTTP(b, New) }

// BenchmarkBare is the limit of BenchmarkServeHTTP: the same bytes through
// a bare Echo handler, without the API layer that every stage shares.
func BenchmarkBare(b *testing.B) { bench.Bare(b) }

func BenchmarkWrite(b *testing.B) { bench.Write(b, New) }

func BenchmarkBuild(b *testing.B) { bench.Build(b, New) }

func BenchmarkMixed(b *testing.B) { bench.Mixed(b, New) }
