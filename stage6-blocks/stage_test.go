package main

import (
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/bench"
)

func TestAPI(t *testing.T) { apitest.Run(t, New) }

func TestDifferential(t *testing.T) { apitest.Differential(t, New) }

func FuzzDifferential(f *testing.F) { apitest.FuzzDifferential(f, New) }

func BenchmarkListByRole(b *testing.B) { bench.ListByRole(b, New) }

func BenchmarkServeHTTP(b *testing.B) { bench.ServeHTTP(b, New) }

func BenchmarkWrite(b *testing.B) { bench.Write(b, New) }

func BenchmarkBuild(b *testing.B) { bench.Build(b, New) }

func BenchmarkMixed(b *testing.B) { bench.Mixed(b, New) }

func BenchmarkFullStore(b *testing.B) { bench.FullStore(b, New) }
