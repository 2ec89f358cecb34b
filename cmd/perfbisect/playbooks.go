package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/spf13/cobra"
)

func newPlaybooksCmd(stdout io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "playbooks",
		Short: "List the embedded playbooks",
		Long: `playbooks lists the playbooks built into perfbisect. 'playbooks show NAME'
prints one as YAML, to copy, edit and run with 'perfbisect run --playbook FILE'.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSTEPS\tDESCRIPTION")
			for _, pb := range playbook.Embedded() {
				fmt.Fprintf(tw, "%s\t%d\t%s\n", pb.Name, len(pb.Steps), pb.Summary())
			}
			return tw.Flush()
		},
	}
	c.AddCommand(&cobra.Command{
		Use:   "show NAME",
		Short: "Print an embedded playbook's YAML",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			src, err := playbook.Source(args[0])
			if err != nil {
				return usageError(err)
			}
			_, err = stdout.Write(src)
			return err
		},
	})
	return c
}
