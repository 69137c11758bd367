package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/openmetrics"
	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/serve/ui"
	"github.com/cairn-bench/cairn/internal/target"
)

func newServe(stderr io.Writer) *cobra.Command {
	cfg := serve.Config{Version: Version, Log: stderr, UI: ui.Handler()}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the REST API and web UI: jobs from run specs and studies, live progress, stored results (docs/serve.md)",
		Long: `cairn serve runs jobs — a run spec, profile or study, a workload's prepare, check or cleanup — by
the same code path as the command line, on the same results store, and serves their live
progress (Server-Sent Events), the stored results and reports, and a web UI. One load per target
at a time: a second job on a busy target waits in a queue. It listens on loopback unless told
otherwise; any other address needs a token (--token-file, or one printed once at start). A spec
sent to it names its password as ${VAR}, read from cairn serve's environment: only the variables
--allow-env names (CAIRN_PASSWORD unless told), and only in db's password (the URL's userinfo,
?password=, ?sslpassword=); a ${VAR} anywhere else, or a password written in the spec, is refused.
A study's restart command runs only when the service was started with --allow-restart.
SIGTERM or Ctrl-C stops the running jobs as Ctrl-C stops a run (kept, stored, restored) and exits 0.

  cairn serve
  cairn serve --listen 0.0.0.0:8321 --token-file ~/.config/cairn/token
  cairn serve --allow-env CAIRN_PASSWORD,CAIRN_SSLPASSWORD`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, n := range cfg.AllowEnv {
				if !target.VarName.MatchString(n) {
					return usagef("--allow-env %q: a variable's name is letters, digits and underscores, not starting with a digit", n)
				}
			}
			cfg.Store = resultsPath(cmd)
			reg := openmetrics.New()
			cfg.Metrics = reg.Handler()
			cfg.JobMetrics = func(id, workload, target string) serve.JobMetrics { return reg.Job(id, workload, target) }
			return serve.Run(cmd.Context(), cfg)
		},
	}
	cmd.Flags().StringVar(&cfg.Listen, "listen", "127.0.0.1:8321", "address to listen on, HOST:PORT (a host alone: port 8321); any but 127.0.0.1, ::1 or localhost needs a token")
	cmd.Flags().StringVar(&cfg.TokenFile, "token-file", "", "file holding the token every request must carry (Authorization: Bearer TOKEN)")
	cmd.Flags().BoolVar(&cfg.AllowRestart, "allow-restart", false, "let a posted study run its restart command, in a shell as this service's user (off: such a study is refused)")
	cmd.Flags().StringSliceVar(&cfg.AllowEnv, "allow-env", []string{target.DefaultAllowEnv}, "the variables a spec may read as ${VAR}, in db's password only (comma-separated; '' for none)")
	return cmd
}
