// Command quest7-logging-fixed serves the user list API from
// stage2-noclone's views and logs list requests at debug level with
// log/slog: the reference solution of side quest 7 in WORKSHOP.md.
// USERPERF_LOG=debug turns the request log on. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("quest7-logging-fixed", New) }
