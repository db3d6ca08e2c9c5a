package results

import (
	"path/filepath"
	"testing"
	"time"
)

func TestWall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test", WallFile)
	if err := WriteWall(path, "command: go run ./scripts/test\n", 9*time.Minute+5*time.Second); err != nil {
		t.Fatal(err)
	}
	wall, f, err := ReadWall(path)
	if err != nil || wall != 9*time.Minute+5*time.Second || f.Config["command"] != "go run ./scripts/test" {
		t.Errorf("ReadWall = %v, %v, %v", wall, f, err)
	}
	if _, _, err := ReadWall(filepath.Join(t.TempDir(), "none.txt")); err == nil {
		t.Error("no file: no error")
	}
}
