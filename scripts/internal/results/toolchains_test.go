package results

import (
	"reflect"
	"testing"
)

func TestOnToolchain(t *testing.T) {
	if got := OnToolchain("stage2-noclone", "go1.27.3"); got != "stage2-noclone@go1.27.3" {
		t.Errorf("OnToolchain = %q", got)
	}
	if got := OnToolchain("stage2-noclone", ""); got != "stage2-noclone" {
		t.Errorf("OnToolchain with this machine's go = %q, want the stage's name alone", got)
	}
	if stage, toolchain := SplitToolchain("stage2-noclone@go1.27.3"); stage != "stage2-noclone" || toolchain != "go1.27.3" {
		t.Errorf("SplitToolchain = %q, %q", stage, toolchain)
	}
	config := map[string]string{"go-version": "go1.26.8", "machine-cpu": "Test CPU"}
	if got := AcrossToolchains(config, []string{"go1.26.8", "go1.27.3"}); got["go-version"] != "go1.26.8 and go1.27.3" ||
		got["machine-cpu"] != "Test CPU" || config["go-version"] != "go1.26.8" {
		t.Errorf("AcrossToolchains = %v (and the config it was given became %v)", got, config)
	}
}

// A 10% change in steady samples is decided against their own floor, and
// not against the 40% that an A/A label measured elsewhere in the run.
func TestWiden(t *testing.T) {
	base := file("a", nil, []float64{100, 101, 99, 100, 102, 98}, nil)
	slower := file("b", nil, []float64{110, 111, 109, 110, 112, 108}, nil)
	c, err := Compare(base, nil, slower, "B")
	if err != nil || !c.Decided || c.Floor > 0.05 {
		t.Fatalf("Compare = %+v, %v; want decided, under a small floor", c, err)
	}
	if w := c.Widen(0.01); !reflect.DeepEqual(w, c) {
		t.Errorf("a narrower floor changed the comparison: %+v", w)
	}
	if w := c.Widen(0.4); w.Decided || w.Floor != 0.4 || w.Ratio != c.Ratio {
		t.Errorf("Widen(0.4) = %+v; want undecided at floor 0.4, the same ratio", w)
	}
}
