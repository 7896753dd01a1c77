package org.jacap.examples;

import java.awt.BorderLayout;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import javax.swing.BorderFactory;
import javax.swing.JButton;
import javax.swing.JFrame;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JTextArea;
import javax.swing.JTextField;
import javax.swing.SwingUtilities;
import javax.swing.Timer;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.KvCacheStats;
import org.jacap.engine.SessionOptions;

/**
 * A desktop chat on Jacap: replies stream into the transcript, Stop ends one and keeps the
 * conversation, and a label shows the KV cache's memory as it grows. Run it with
 * {@code java --add-modules jdk.incubator.vector -Xmn64m -cp ... org.jacap.examples.ChatWindow MODEL.gguf}.
 */
public final class ChatWindow {
    private final ChatModel model;
    private final JTextArea transcript = new JTextArea(24, 80);
    private final JTextField input = new JTextField();
    private final JButton send = new JButton("Send");
    private final JButton stop = new JButton("Stop");
    private final JLabel memory = new JLabel(" ");

    private ChatWindow(ChatModel model) {
        this.model = model;
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: ChatWindow MODEL.gguf");
            System.exit(2);
        }
        Engine engine;
        try {
            engine = Engine.load(Path.of(args[0]), EngineOptions.defaults());
        } catch (IOException | RuntimeException e) { // JacapException, GgufFormatException: a message for people
            String why = e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage();
            System.err.println("ChatWindow: cannot load " + args[0] + ": " + why);
            System.exit(1);
            return;
        }
        ChatModel model = new ChatModel(
                engine, SessionOptions.defaults(), GenerationOptions.defaults().withMaxTokens(512));
        SwingUtilities.invokeLater(() -> new ChatWindow(model).show(engine));
    }

    private void show(Engine engine) {
        JFrame frame = new JFrame("Jacap chat: " + engine.path().getFileName());
        transcript.setEditable(false);
        transcript.setLineWrap(true);
        transcript.setWrapStyleWord(true);
        transcript.setFont(new Font(Font.MONOSPACED, Font.PLAIN, 13));
        stop.setEnabled(false);
        send.addActionListener(e -> submit());
        input.addActionListener(e -> submit());
        stop.addActionListener(e -> model.stop());

        JPanel bottom = new JPanel(new BorderLayout(4, 4));
        bottom.add(input, BorderLayout.CENTER);
        JPanel buttons = new JPanel();
        buttons.add(send);
        buttons.add(stop);
        bottom.add(buttons, BorderLayout.EAST);
        bottom.add(memory, BorderLayout.SOUTH);
        bottom.setBorder(BorderFactory.createEmptyBorder(4, 4, 4, 4));

        frame.add(new JScrollPane(transcript), BorderLayout.CENTER);
        frame.add(bottom, BorderLayout.SOUTH);
        frame.setDefaultCloseOperation(JFrame.DISPOSE_ON_CLOSE);
        frame.addWindowListener(new java.awt.event.WindowAdapter() {
            @Override
            public void windowClosed(java.awt.event.WindowEvent e) {
                model.close();
                engine.close();
            }
        });
        new Timer(200, e -> memory.setText(describe(model.kvCache()))).start(); // the live figure
        frame.pack();
        frame.setVisible(true);
        input.requestFocusInWindow();
    }

    private void submit() {
        String text = input.getText().strip();
        if (text.isEmpty() || stop.isEnabled()) {
            return;
        }
        input.setText("");
        transcript.append("you: " + text + "\nmodel: ");
        send.setEnabled(false);
        stop.setEnabled(true);
        model.send(text, new ChatModel.Listener() {
            @Override
            public void text(String piece) {
                SwingUtilities.invokeLater(() -> transcript.append(piece));
            }

            @Override
            public void finished(GenerationResult r) {
                SwingUtilities.invokeLater(() -> {
                    transcript.append(String.format(
                            Locale.ROOT,
                            "%n  [%d tokens, %.1f tokens/s, %s]%n",
                            r.generatedTokens(),
                            r.timings().evalTokensPerSecond(),
                            r.finishReason().name().toLowerCase(Locale.ROOT)));
                    idle();
                });
            }

            @Override
            public void failed(String message) {
                SwingUtilities.invokeLater(() -> {
                    transcript.append("\n  [" + message + "]\n");
                    idle();
                });
            }
        });
    }

    private void idle() {
        send.setEnabled(true);
        stop.setEnabled(false);
    }

    /** The memory figure: bytes held by the KV cache's entries, and what is allocated for it. */
    static String describe(KvCacheStats kv) {
        return String.format(
                Locale.ROOT,
                "KV cache: %.2f MiB in use of %.2f MiB allocated, %d entries",
                kv.bytesInUse() / 1048576.0,
                kv.bytesAllocated() / 1048576.0,
                kv.entries());
    }
}
