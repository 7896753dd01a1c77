package org.jacap.server;

import com.fasterxml.jackson.databind.JsonNode;

/** Reads one field of a JSON request body, failing with the API's bad-field error when it has the wrong type. */
final class RequestFields {
    private RequestFields() {}

    /** {@code body.field} as a boolean; {@code fallback} when absent or null. */
    static boolean bool(JsonNode body, String field, boolean fallback) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isBoolean()) {
            throw ApiError.badField(field, "'" + field + "' must be true or false");
        }
        return v.asBoolean();
    }

    /** {@code body.field} as an int in [min, max]; {@code fallback} when absent or null. */
    static int integer(JsonNode body, String field, int fallback, int min, int max) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min || v.asInt() > max) {
            throw ApiError.badField(field, "'" + field + "' must be an integer in [" + min + ", " + max + "]");
        }
        return v.asInt();
    }

    /** {@code v} (the value of {@code field}) as a number. */
    static double number(JsonNode v, String field) {
        if (!v.isNumber()) {
            throw ApiError.badField(field, "'" + field + "' must be a number");
        }
        return v.asDouble();
    }
}
