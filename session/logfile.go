package session

// WriteLogFile writes a whole log at path, event by event as a session
// writes it: the counterpart of ReadLogFile, for a log whose events are
// all at hand (a test's, a tool's).
func WriteLogFile(path string, evs []Event) error {
	w, err := CreateLog(path)
	if err != nil {
		return err
	}
	for _, e := range evs {
		_ = w.Write(e) // the writer keeps its first error, and Close returns it
	}
	return w.Close()
}
