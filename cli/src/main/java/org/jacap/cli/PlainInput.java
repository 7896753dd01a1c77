package org.jacap.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Lines from a pipe or file: no editing, no prompt, Ctrl-C left to the shell. */
final class PlainInput implements ChatInput {
    private final BufferedReader in;

    PlainInput(InputStream in) {
        this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    @Override
    public String readLine(String prompt) {
        try {
            return in.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void onInterrupt(Runnable action) {}

    @Override
    public void close() {}
}
