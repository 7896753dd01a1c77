package org.jacap.engine;

/**
 * Told how far {@link Engine#load} got while it pages the weights in, on the loading thread.
 * Calls come in order, {@code bytesDone} never decreasing, the last one with
 * {@code bytesDone == bytesTotal}.
 */
@FunctionalInterface
public interface LoadListener {
    /** Reports nothing. */
    LoadListener NONE = (bytesDone, bytesTotal, tensor) -> {};

    /**
     * @param bytesDone  bytes of tensor data read so far
     * @param bytesTotal bytes of tensor data in the file
     * @param tensor     the name of the tensor being read (empty before the first one)
     */
    void onProgress(long bytesDone, long bytesTotal, String tensor);
}
