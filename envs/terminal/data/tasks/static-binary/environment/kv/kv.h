#ifndef KV_H
#define KV_H
/* Parses "key=value" lines from stdin; looks up keys. */
int kv_load(const char *path);
const char *kv_get(const char *key);
#endif
