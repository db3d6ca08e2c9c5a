package api

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestParseFlagsRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"x", "-addr", "127.0.0.1:9000"}, `unexpected argument "x"`},
		{[]string{"-addr", "127.0.0.1:9000", "x"}, `unexpected argument "x"`},
		{[]string{"-addr", ""}, "-addr is empty"},
		{[]string{"-addr", "8080"}, "is not host:port"},
		{[]string{"-pprof-addr", ":6060"}, "not a loopback address"},
		{[]string{"-pprof-addr", "0.0.0.0:6060"}, "not a loopback address"},
		{[]string{"-pprof-addr", "[::]:6060"}, "not a loopback address"},
		{[]string{"-pprof-addr", "192.168.1.5:6060"}, "not a loopback address"},
		{[]string{"-pprof-addr", "example.com:6060"}, "not a loopback address"},
		{[]string{"-pprof-addr", "6060"}, "is not host:port"},
		{[]string{"-users", "1000", "-max-users", "999"}, "-max-users 999 is below -users 1000"},
		{[]string{"-users", "10"}, "-users 10 is outside"},
		{[]string{"-max-conns", "0"}, "-max-conns 0 is below 1"},
		{[]string{"-max-conns", "4", "-max-client-conns", "5"}, "-max-client-conns 5 is outside 1 to -max-conns 4"},
		{[]string{"-max-inflight-mib", "16", "-max-client-mib", "17"}, "-max-client-mib 17 is above -max-inflight-mib 16"},
		{[]string{"-max-client-mib", "0"}, "give a whole number of MiB"},
		{[]string{"-no-such-flag"}, "flag provided but not defined"},
	} {
		var stderr strings.Builder
		_, err := parseFlags("stage", tc.args, &stderr)
		if !errors.Is(err, errUsage) {
			t.Errorf("%q: error %v, want the usage error", tc.args, err)
		}
		if out := stderr.String(); !strings.Contains(out, tc.says) || !strings.Contains(out, "usage: stage [flags]") {
			t.Errorf("%q: stderr does not say %q and show the usage:\n%s", tc.args, tc.says, out)
		}
	}
}

func TestParseFlagsAccepts(t *testing.T) {
	var stderr strings.Builder
	cfg, err := parseFlags("stage", nil, &stderr)
	if err != nil || cfg.addr != "127.0.0.1:8080" || cfg.pprofAddr != "" || cfg.limits != DefaultLimits {
		t.Errorf("no flags: %+v, %v; want loopback, profiling on it, the default limit", cfg, err)
	}
	for _, args := range [][]string{
		{"-pprof-addr", "127.0.0.1:6060"},
		{"-pprof-addr", "127.0.0.2:6060"},
		{"-pprof-addr", "[::1]:6060"},
		{"-pprof-addr", "localhost:6060"},
		{"-addr", ":8080"}, // beyond loopback, allowed with a warning
		{"-users", "1000", "-max-users", "1001"},
	} {
		if _, err := parseFlags("stage", args, &stderr); err != nil {
			t.Errorf("%q: %v\n%s", args, err, stderr.String())
		}
	}
	if _, err := parseFlags("stage", []string{"-h"}, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}

func TestMaxClientBytesIsAQuarterUnlessGiven(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{nil, DefaultLimits.MaxInFlightBytes / 4},
		{[]string{"-max-inflight-mib", "64"}, 16 << 20},
		{[]string{"-max-inflight-mib", "64", "-max-client-mib", "64"}, 64 << 20},
		{[]string{"-max-client-mib", "8"}, 8 << 20},
	} {
		var stderr strings.Builder
		cfg, err := parseFlags("stage", tc.args, &stderr)
		if err != nil || cfg.limits.MaxClientBytes != tc.want {
			t.Errorf("%q: MaxClientBytes %d, %v; want %d\n%s", tc.args, cfg.limits.MaxClientBytes, err, tc.want, stderr.String())
		}
	}
}

func TestMaxClientConnsIsAQuarterUnlessGiven(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, DefaultLimits.MaxConns / 4},
		{[]string{"-max-conns", "100"}, 25},
		{[]string{"-max-conns", "3"}, 1},
		{[]string{"-max-conns", "100", "-max-client-conns", "100"}, 100},
	} {
		var stderr strings.Builder
		cfg, err := parseFlags("stage", tc.args, &stderr)
		if err != nil || cfg.limits.MaxClientConns != tc.want {
			t.Errorf("%q: MaxClientConns %d, %v; want %d\n%s", tc.args, cfg.limits.MaxClientConns, err, tc.want, stderr.String())
		}
	}
}
