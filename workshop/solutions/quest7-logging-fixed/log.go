package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"
)

// logEnv names the environment variable that sets the log level: debug,
// info (the default), warn or error. The flags belong to the shared
// api.Main, so a stage reads its own settings from the environment.
const logEnv = "USERPERF_LOG"

// logger is the request log: log/slog's text handler on standard error.
// A list request is a debug record, so at the default level the hot path
// pays for one Enabled check and writes nothing. At debug level the handler
// formats a whole record into a buffer of its own and writes it with one
// system call, however many fields it has: one write per request instead
// of one per field, per character and per user.
var logger = newLogger(os.Stderr, os.Getenv(logEnv))

// newLogger returns a logger writing to w at the level named by level.
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level // the zero Level is info
	err := l.UnmarshalText([]byte(level))
	logger := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
	if level != "" && err != nil {
		logger.Warn("unknown log level; logging at info", "env", logEnv, "value", level)
	}
	return logger
}

// logList logs one list request: the role (quoted by the handler when it
// needs quoting, so that it cannot forge a line), how many users it found
// and how long it took. The users themselves are left out: a line per user
// is a debugger's job, and it made the log grow with the answer.
func logList(role string, matches int, took time.Duration) {
	logger.LogAttrs(context.Background(), slog.LevelDebug, "list",
		slog.String("role", role), slog.Int("matches", matches), slog.Duration("took", took))
}
