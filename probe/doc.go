// Package probe owns the measurement of one run: the workload Spec that
// says exactly what runs, the per-second Sample and the Summary of a run
// (with the fields it really measured), the built-in fsync probe and its
// HDR-histogram Meter, the Totals and Tally that add samples up where no
// histogram is kept, and the JSON Lines and text encodings that every
// reader of a run shares. Its subpackages are the machine under
// investigation: the tools that measure it, the knobs that change it, the
// hosts that run them, the lab that imitates EBS.
package probe
