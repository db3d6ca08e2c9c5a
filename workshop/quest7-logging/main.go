// Command quest7-logging serves the user list API from stage2-noclone's
// views and logs every list request as a first version does: the starting
// point of side quest 7 in WORKSHOP.md. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("quest7-logging", New) }
