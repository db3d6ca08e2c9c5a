package harness

import (
	"cmp"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
)

// RaceCompiler is, when the C compiler that the race detector needs is not
// on PATH, an error that says so and how to get one, in one line. macOS
// needs none: its race detector has not used cgo since Go 1.20.
func RaceCompiler() error {
	out, _ := GoOutput("env", "CC")
	cc := strings.Join(append(strings.Fields(out), "gcc")[:1], "")
	if _, err := exec.LookPath(cc); err == nil || runtime.GOOS == "darwin" {
		return nil
	}
	how := map[string]string{
		"windows": "install gcc, such as MSYS2's mingw-w64 (https://www.msys2.org), and put its bin folder on PATH",
	}[runtime.GOOS]
	return fmt.Errorf("the race detector needs a C compiler, and %s (go env CC) is not on PATH: %s", cc,
		cmp.Or(how, "install gcc with your system's package manager (apt install gcc, dnf install gcc, apk add gcc)"))
}
