package org.jacap.cli;

import java.net.URI;
import java.net.URISyntaxException;
import org.jacap.JacapException;

/**
 * Where {@code jacap pull} downloads from: an http(s) URL, or {@code hf://owner/repo/path/file.gguf}
 * (a file of a Hugging Face model repository, main branch; {@code hf://owner/repo@rev/file} picks
 * another revision).
 *
 * @param uri      the http(s) address
 * @param fileName the file name it is saved under
 */
record ModelSource(URI uri, String fileName) {

    static ModelSource parse(String spec, String hfEndpoint) {
        String url;
        if (spec.startsWith("hf://")) {
            String[] parts = spec.substring("hf://".length()).split("/", 3);
            if (parts.length < 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
                throw new JacapException("a Hugging Face source is hf://OWNER/REPO/FILE.gguf (got " + spec + ")");
            }
            String repo = parts[1];
            String revision = "main";
            int at = repo.indexOf('@');
            if (at >= 0) {
                revision = repo.substring(at + 1);
                repo = repo.substring(0, at);
            }
            url = stripSlash(hfEndpoint) + "/" + parts[0] + "/" + repo + "/resolve/" + revision + "/" + parts[2];
        } else if (spec.startsWith("http://") || spec.startsWith("https://")) {
            url = spec;
        } else {
            throw new JacapException("cannot pull '" + spec + "': give an http(s) URL or hf://OWNER/REPO/FILE.gguf");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new JacapException("not a valid URL: " + url + " (" + e.getReason() + ")");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (name.isEmpty()) {
            throw new JacapException("the URL " + url + " names no file; give the .gguf file's address");
        }
        return new ModelSource(uri, name);
    }

    private static String stripSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }
}
