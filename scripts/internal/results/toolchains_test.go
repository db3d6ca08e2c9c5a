package results

import "testing"

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
