package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/scaffold"
)

func newProtoCommand() *cobra.Command {
	var out, version string
	cmd := &cobra.Command{
		Use:   "proto --out DIR",
		Short: "Write the bundled A2A proto and the files protoc needs to compile it",
		Long: `proto writes lf/a2a/v1/a2a.proto, the A2A v1 proto bundled with a2agen (its
go_package is github.com/a2agen/a2agen/a2a/v1), into DIR together with the
google/api and google/protobuf files it imports, printed from the
descriptors compiled into a2a-scaffold. protoc then needs nothing but -I DIR
(see the example: M gives the generated package an import path of yours).

Existing files in DIR with the same names are overwritten. It prints the
written paths, relative to DIR.

--version 1.1-draft writes the A2A 1.1 draft instead (branch dev-1.1 of the
A2A specification with its open PR #2153 applied; the same proto package with
the task generation fields, timeline and the live rpc SendLiveMessage),
at the same path: package github.com/a2agen/a2agen/a2a/v1 is generated from it,
and agents serve it only to callers that ask for A2A-Version 1.1
(docs/bindings.md, "A2A 1.1 draft").`,
		Example: `  a2a-scaffold proto --out proto
  protoc -I proto \
    --go_out=. --go_opt=module=example.com/agent,Mlf/a2a/v1/a2a.proto=example.com/agent/a2av1 \
    --a2a_out=. --a2a_opt=module=example.com/agent,Mlf/a2a/v1/a2a.proto=example.com/agent/a2av1 \
    lf/a2a/v1/a2a.proto`,
		Args: exactArgs(0, "no arguments (use --out DIR)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError{errors.New("proto needs --out DIR")}
			}
			paths, err := scaffold.ProtoVersion(out, version)
			if err != nil {
				return err
			}
			for _, p := range paths {
				fmt.Fprintln(cmd.OutOrStdout(), p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the .proto files into (created if missing)")
	cmd.Flags().StringVar(&version, "version", "1.0", "bundled A2A version to write: 1.0 or 1.1-draft")
	_ = cmd.MarkFlagDirname("out")
	return cmd
}
