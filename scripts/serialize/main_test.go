package main

import (
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
)

// A run labelled idle that got under idleCores warns, naming the benchmark; one that got its cores does not.
func TestBusyIdle(t *testing.T) {
	idle := func(cores ...float64) *results.File {
		return results.NewFile("stage3-idle", nil, map[results.Measurement][]float64{{Bench: "Parallel/matches=100/clients=16", Unit: "cores"}: cores})
	}
	if w := busyIdle(idle(0.3, 0.4, 0.35, 0.5, 0.2, 0.3)); !strings.Contains(w, "got 0.32 cores at Parallel/matches=100/clients=16") ||
		!strings.Contains(w, "close other programs") {
		t.Errorf("busyIdle of a busy idle run = %q", w)
	}
	if w := busyIdle(idle(1.9, 1.8, 1.95, 1.7, 1.9, 1.85)); w != "" {
		t.Errorf("busyIdle of an idle run = %q", w)
	}
}
