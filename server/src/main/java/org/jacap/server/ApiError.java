package org.jacap.server;

/**
 * A request that ends in an OpenAI-style JSON error: {@code {"error":{"message","type","param","code"}}}.
 *
 * @param status HTTP status
 * @param type   OpenAI's error type (invalid_request_error, authentication_error, ...)
 * @param param  the request field at fault, or null
 */
final class ApiError extends RuntimeException {
    private final int status;
    private final String type;
    private final String param;

    ApiError(int status, String type, String param, String message) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
    }

    /** 400 naming the field. */
    static ApiError badField(String param, String message) {
        return new ApiError(400, "invalid_request_error", param, message);
    }

    int status() {
        return status;
    }

    String type() {
        return type;
    }

    String param() {
        return param;
    }
}
