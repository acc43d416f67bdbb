package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/scaffold"
)

func newValidateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check an agent manifest and report every problem",
		Long: `validate reads an agent manifest and reports every problem at once, one per
line, as file:line:col: path: message (unknown keys with a did-you-mean,
missing required fields, wrong types, duplicate skill ids, bad URLs and
media types, requirements naming undefined schemes, unknown bindings).
It exits with 1 when there is any problem and 0 when the manifest is valid.`,
		Example: `  a2a-scaffold validate agent.yaml
  a2a-scaffold validate examples/weather/agent.yaml && echo ok`,
		Args:              exactArgs(1, "one manifest file"),
		ValidArgsFunction: yamlFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := scaffold.Validate(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid\n", args[0])
			return nil
		},
	}
}
