package org.jacap.bench.perplexity;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import org.jacap.JacapException;
import org.jacap.bench.progress.Progress;
import org.jacap.kv.KvCacheTypes;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.jacap.tokenizer.Tokenizer;

/**
 * llama-perplexity's protocol on a Jacap model: the text is tokenized once (BOS in front when the
 * model adds one, no special-token parsing), cut into chunks of {@code nCtx} tokens, each chunk is
 * evaluated from an empty cache with its first token replaced by BOS (when the model adds BOS), and
 * only the second half is scored: the logits at positions nCtx/2 … nCtx−2 predicting the next token.
 * Optionally writes those positions' log-probabilities as a llama.cpp base file, or compares them
 * with one ({@link KlDivergence}).
 */
public final class PerplexityRun {
    /** Tokens per forward call whose logits are kept (bounds the logits buffer for large vocabularies). */
    private static final int LOGIT_BATCH = 32;

    /** What the run does with the scored positions. */
    public sealed interface Mode {
        /** Perplexity only. */
        record Plain() implements Mode {}

        /** Perplexity, and each scored row written to a base file. */
        record WriteBase(Path file) implements Mode {}

        /** KL divergence against a base file, whose tokens and n_ctx are used instead of the text's. */
        record CompareBase(Path file) implements Mode {}
    }

    /** The outcome: perplexity with its uncertainty, and the KL statistics when a base was compared. */
    public record Result(double perplexity, double uncertainty, int chunks, int scored, KlDivergence kld) {}

    private final Model model;
    private final Tokenizer tokenizer;
    private final PrintWriter out;
    private final Progress progress;

    public PerplexityRun(Model model, Tokenizer tokenizer, PrintWriter out, Progress progress) {
        this.model = model;
        this.tokenizer = tokenizer;
        this.out = out;
        this.progress = progress;
    }

    /** The tokens llama-perplexity evaluates for {@code text}. */
    public int[] tokenize(String text) {
        return tokenizer.encode(text, tokenizer.addBosByDefault(), false);
    }

    /**
     * Runs the protocol on {@code tokens} (ignored in {@link Mode.CompareBase}, which uses the base's).
     *
     * @param maxChunks at most this many chunks; negative = all the text holds
     * @param batch tokens per forward call in the unscored half (llama.cpp's {@code -b})
     */
    public Result run(int[] tokens, int nCtx, int maxChunks, int batch, Mode mode) throws IOException {
        if (mode instanceof Mode.CompareBase(Path file)) {
            try (LogitsFile.Reader base = new LogitsFile.Reader(file)) {
                LogitsFile.Header h = base.header();
                if (h.nVocab() != model.config().vocabSize()) {
                    throw new JacapException(file + " was made with a vocabulary of " + h.nVocab()
                            + " tokens; this model has " + model.config().vocabSize());
                }
                int chunks = maxChunks < 0 ? h.nChunk() : Math.min(maxChunks, h.nChunk());
                return evaluate(h.tokens(), h.nCtx(), chunks, batch, null, base);
            }
        }
        if (nCtx < 4) {
            throw new JacapException("-c must be at least 4 (got " + nCtx + ")");
        }
        if (tokens.length < 2 * nCtx) {
            throw new JacapException("the text has " + tokens.length + " tokens; a context of " + nCtx
                    + " needs at least " + 2 * nCtx + " (use a smaller -c or a longer text)");
        }
        int available = tokens.length / nCtx;
        int chunks = maxChunks < 0 ? available : Math.min(maxChunks, available);
        if (mode instanceof Mode.WriteBase(Path file)) {
            try (LogitsFile.Writer w =
                    new LogitsFile.Writer(file, nCtx, model.config().vocabSize(), chunks, tokens)) {
                return evaluate(tokens, nCtx, chunks, batch, w, null);
            }
        }
        return evaluate(tokens, nCtx, chunks, batch, null, null);
    }

    private Result evaluate(
            int[] tokens, int nCtx, int chunks, int batch, LogitsFile.Writer writer, LogitsFile.Reader base)
            throws IOException {
        int vocab = model.config().vocabSize();
        int first = nCtx / 2;
        int scoredPerChunk = nCtx - 1 - first;
        boolean addBos = tokenizer.addBosByDefault() && tokenizer.bosId() >= 0;
        short[] q = new short[vocab];
        KlDivergence kld = base != null ? new KlDivergence() : null;
        if (kld != null) {
            out.println(KlDivergence.chunkHeader());
        }
        double nll = 0;
        double nll2 = 0;
        int count = 0;
        int[] chunk = new int[nCtx];
        for (int c = 0; c < chunks; c++) {
            System.arraycopy(tokens, c * nCtx, chunk, 0, nCtx);
            if (addBos) {
                chunk[0] = tokenizer.bosId();
            }
            InferenceState st = model.newState(nCtx, KvCacheTypes.DEFAULT); // F16, as llama-perplexity
            for (int p = 0; p < first; p += batch) {
                model.forward(st, chunk, p, Math.min(batch, first - p), false);
            }
            for (int p = first; p < nCtx; p += LOGIT_BATCH) {
                int len = Math.min(LOGIT_BATCH, nCtx - p);
                float[] logits = model.forward(st, chunk, p, len, true);
                for (int i = 0; i < len; i++) {
                    int pos = p + i;
                    if (pos >= nCtx - 1) {
                        break;
                    }
                    int next = chunk[pos + 1];
                    int off = i * vocab;
                    if (kld != null) {
                        kld.add(logits, off, vocab, base.next(q), next);
                    } else {
                        double v = negLogProb(logits, off, vocab, next);
                        nll += v;
                        nll2 += v * v;
                        count++;
                        if (writer != null) {
                            writer.write(QuantizedLogProbs.of(logits, off, vocab, q));
                        }
                    }
                }
            }
            progress.update(c + 1, chunks, "chunk");
            if (kld != null) {
                out.println(kld.chunkLine(c + 1));
            } else {
                out.printf(Locale.ROOT, "[%d]%.4f,", c + 1, Math.exp(nll / count));
            }
            out.flush();
        }
        if (kld != null) {
            out.println();
            kld.report(out);
            out.flush();
            return new Result(kld.perplexity(), Double.NaN, chunks, kld.count(), kld);
        }
        out.println();
        double mean = nll / count;
        double var = nll2 / count - mean * mean;
        double ppl = Math.exp(mean);
        double unc = var > 0 ? Math.sqrt(var / (count - 1)) * ppl : Double.NaN;
        out.printf(Locale.ROOT, "Final estimate: PPL = %.4f +/- %.5f%n", ppl, unc);
        out.flush();
        assert scoredPerChunk * chunks == count;
        return new Result(ppl, unc, chunks, count, null);
    }

    /** −log softmax(logits)[token] as llama.cpp computes it (float max, double sum of float exps). */
    static double negLogProb(float[] logits, int off, int n, int token) {
        float max = logits[off];
        for (int i = 1; i < n; i++) {
            max = Math.max(max, logits[off + i]);
        }
        return -(logits[off + token] - max - Math.log(LlamaSoftmax.sumExp(logits, off, n, max)));
    }
}
