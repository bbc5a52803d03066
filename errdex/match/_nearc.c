/* The nearest-record lookup of errdex.match.near, in C.

   NearIndex.nearest reads a message's tokens, their ids, the slots of their word pairs,
   the postings of those slots and the words of a few candidate templates. At a million
   templates nearly every one of those reads misses the CPU caches, and in Python each
   miss waits for the one before it. Here the reads of one stage are issued together, so
   the misses overlap, and a token's id is one probe of a flat table instead of a dict
   lookup and a string comparison.

   It answers exactly as NearIndex._nearest_python does (tests/test_compiled.py compares
   them); that function's docstring, and the module's, say what is computed and why.
   Built by setup.py where a C compiler is found; errdex works the same without it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the token table: token text -> `id << 1 | is a word` ---------------------------
   Bytes: a u64 slot mask, then mask + 1 slots of four u32 (check: the hash's high half,
   value, key offset, key length), then the keys' text. EMPTY marks a free slot. */

#define EMPTY 0xFFFFFFFFu
#define HEADER 8
#define SLOT 16

typedef struct {
    uint32_t check, value, offset, length;
} Slot;

static uint64_t token_hash(const char *text, Py_ssize_t n) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, then a 64-bit finalizer */
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)text[i];
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static PyObject *token_table(PyObject *module, PyObject *ids) {
    (void)module;
    if (!PyDict_Check(ids)) {
        PyErr_SetString(PyExc_TypeError, "token_table() takes a dict of str to int");
        return NULL;
    }
    Py_ssize_t n = PyDict_Size(ids), pos = 0, text_bytes = 0;
    PyObject *key, *value;
    while (PyDict_Next(ids, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyLong_Check(value)) {
            PyErr_SetString(PyExc_TypeError, "token_table() takes a dict of str to int");
            return NULL;
        }
        if (PyUnicode_IS_ASCII(key)) /* a message's tokens are ASCII: others never match */
            text_bytes += PyUnicode_GET_LENGTH(key);
    }
    uint64_t slots = 16;
    while (slots < 2 * (uint64_t)n) slots <<= 1;
    if (text_bytes > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "too much token text for the token table");
        return NULL;
    }
    Py_ssize_t size = HEADER + (Py_ssize_t)slots * SLOT + text_bytes;
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) return NULL;
    char *base = PyBytes_AS_STRING(out);
    uint64_t mask = slots - 1;
    memcpy(base, &mask, 8);
    Slot *table = (Slot *)(base + HEADER);
    char *text = base + HEADER + slots * SLOT;
    memset(table, 0xFF, slots * SLOT);
    uint32_t offset = 0;
    pos = 0;
    while (PyDict_Next(ids, &pos, &key, &value)) {
        if (!PyUnicode_IS_ASCII(key)) continue;
        long v = PyLong_AsLong(value);
        if (v < 0 || v >= (long)EMPTY) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a token id out of the table's range");
            Py_DECREF(out);
            return NULL;
        }
        Py_ssize_t length = PyUnicode_GET_LENGTH(key);
        const char *chars = (const char *)PyUnicode_1BYTE_DATA(key);
        uint64_t h = token_hash(chars, length);
        uint64_t at = h & mask;
        while (table[at].value != EMPTY) at = (at + 1) & mask;
        table[at].check = (uint32_t)(h >> 32);
        table[at].value = (uint32_t)v;
        table[at].offset = offset;
        table[at].length = (uint32_t)length;
        memcpy(text + offset, chars, (size_t)length);
        offset += (uint32_t)length;
    }
    return out;
}

/* ---- the lookup -------------------------------------------------------------------- */

enum { TABLE, PAIR_START, FINGERPRINT, OWNER, WORDS_START, TEMPLATE_WORDS, IDF, IDF_TOTAL,
       PAIR_COUNT, VIEWS };

/* A token table's parts, found once when a Lookup is made. */
typedef struct {
    const Slot *slots;
    const char *text;
    uint64_t mask;
} Tokens;

typedef struct {
    PyObject_HEAD
    Py_buffer views[VIEWS];
    int held, ready;
    Tokens tokens;
    uint64_t pair_slots;
    long pair_templates, read_cap, min_words, candidates, few_pairs;
    double threshold;
} Lookup;

static void lookup_dealloc(Lookup *self) {
    for (int i = 0; i < self->held; i++) PyBuffer_Release(&self->views[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int lookup_init(Lookup *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"table", "pair_start", "fingerprint", "owner", "words_start",
                            "template_words", "idf", "idf_total", "pair_count",
                            "pair_slots", "pair_templates", "read_cap", "min_words",
                            "candidates", "few_pairs", "threshold", NULL};
    PyObject *objects[VIEWS];
    unsigned long long pair_slots;
    if (self->held) {
        PyErr_SetString(PyExc_RuntimeError, "Lookup is already initialized");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "OOOOOOOOOKllllld", names, &objects[0], &objects[1], &objects[2],
            &objects[3], &objects[4], &objects[5], &objects[6], &objects[7], &objects[8],
            &pair_slots, &self->pair_templates, &self->read_cap, &self->min_words,
            &self->candidates, &self->few_pairs, &self->threshold))
        return -1;
    static const Py_ssize_t item[VIEWS] = {1, 4, 2, 4, 4, 4, 8, 8, 1};
    for (int i = 0; i < VIEWS; i++) {
        if (PyObject_GetBuffer(objects[i], &self->views[i], PyBUF_SIMPLE) < 0) return -1;
        self->held = i + 1;
        if (self->views[i].len % item[i]) {
            PyErr_Format(PyExc_ValueError, "Lookup: argument %s has a partial item", names[i]);
            return -1;
        }
    }
    if (self->views[TABLE].len < HEADER + SLOT || pair_slots == 0 ||
        pair_slots > UINT32_MAX || self->read_cap < 0 ||
        self->candidates < 0 || self->pair_templates < 0 || self->pair_templates > 0xFFFF ||
        (Py_ssize_t)(pair_slots + 1) * 4 > self->views[PAIR_START].len) {
        PyErr_SetString(PyExc_ValueError, "Lookup: inconsistent index arrays");
        return -1;
    }
    uint64_t mask;
    memcpy(&mask, self->views[TABLE].buf, 8);
    uint64_t table_len = (uint64_t)self->views[TABLE].len;
    if ((mask & (mask + 1)) || HEADER + (mask + 1) * SLOT > table_len) {
        PyErr_SetString(PyExc_ValueError, "Lookup: not a token table");
        return -1;
    }
    const char *table = (const char *)self->views[TABLE].buf;
    const Slot *slots = (const Slot *)(table + HEADER);
    uint64_t text_len = table_len - HEADER - (mask + 1) * SLOT;
    for (uint64_t at = 0; at <= mask; at++)
        if (slots[at].value != EMPTY &&
            (uint64_t)slots[at].offset + slots[at].length > text_len) {
            PyErr_SetString(PyExc_ValueError, "Lookup: not a token table");
            return -1;
        }
    self->tokens = (Tokens){slots, table + HEADER + (mask + 1) * SLOT, mask};
    self->pair_slots = pair_slots;
    self->ready = 1;
    return 0;
}

static inline uint32_t u32(const Py_buffer *view, uint64_t i) {
    const unsigned char *b = (const unsigned char *)view->buf + 4 * i;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

#define MASK30 ((1ULL << 30) - 1)

static inline uint64_t mix(uint64_t x) {
    x = ((x ^ (x >> 15)) * 0x2C1B3C6DULL) & MASK30;
    x = ((x ^ (x >> 13)) * 0x297A2D39ULL) & MASK30;
    return x ^ (x >> 16);
}

static inline uint64_t pair_hash(uint64_t first, uint64_t second) {
    uint64_t key = first * 0x1E3779B1ULL + second;
    key = (key ^ (key >> 30)) & MASK30;
    return mix(key) << 16 | (mix(key ^ 0x1BD1E995ULL) & 0xFFFF);
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A set of small non-negative integers (ids, templates), open addressing, with the
   position each was first added at. */
typedef struct {
    uint32_t *keys, *where;
    uint64_t mask;
} IntSet;

static int intset_make(IntSet *s, uint64_t at_least) {
    uint64_t n = 16;
    while (n < 2 * at_least) n <<= 1;
    s->keys = malloc(n * 4);
    s->where = malloc(n * 4);
    s->mask = n - 1;
    if (!s->keys || !s->where) return -1;
    memset(s->keys, 0xFF, n * 4);
    return 0;
}

static void intset_free(IntSet *s) {
    free(s->keys);
    free(s->where);
}

static inline uint32_t *intset_slot(IntSet *s, uint32_t key) {
    uint64_t at = (key * 0x9E3779B97F4A7C15ULL) >> 40 & s->mask;
    while (s->keys[at] != EMPTY && s->keys[at] != key) at = (at + 1) & s->mask;
    return &s->keys[at];
}

/* Adds `key`; the position it was first added at (`order` if new). */
static inline uint32_t intset_add(IntSet *s, uint32_t key, uint32_t order) {
    uint32_t *slot = intset_slot(s, key);
    uint32_t *where = &s->where[slot - s->keys];
    if (*slot == EMPTY) {
        *slot = key;
        *where = order;
    }
    return *where;
}

static inline int intset_has(IntSet *s, uint32_t key) { return *intset_slot(s, key) == key; }

/* Adds `key`: 1 if it was not there. */
static inline int intset_insert(IntSet *s, uint32_t key) {
    uint32_t *slot = intset_slot(s, key);
    if (*slot == key) return 0;
    *slot = key;
    return 1;
}

typedef struct {
    Py_ssize_t start, length; /* in the message */
    uint64_t hash;
} Token;

static int64_t table_get(const Tokens *tokens, const char *text, Py_ssize_t n, uint64_t h) {
    uint64_t mask = tokens->mask;
    for (uint64_t at = h & mask, probes = 0; probes <= mask; at = (at + 1) & mask, probes++) {
        const Slot *s = &tokens->slots[at];
        if (s->value == EMPTY) return -1;
        if (s->check == (uint32_t)(h >> 32) && s->length == (uint64_t)n &&
            memcmp(tokens->text + s->offset, text, (size_t)n) == 0)
            return s->value;
    }
    return -1; /* a full table: not one token_table makes */
}

static inline void prefetch_slot(const Tokens *tokens, uint64_t h) {
    __builtin_prefetch(&tokens->slots[h & tokens->mask]);
}

static inline int is_token_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static inline int is_leading_digit(unsigned char c) {
    return (c >= '0' && c <= '9') || c == '_';
}

/* Everything a call allocates, freed in one place. */
typedef struct {
    char *ascii;
    Token *tokens;
    Token *words;
    int64_t *values;
    int64_t *word_values;
    uint64_t *reads;
    uint32_t *shared;
    uint32_t *owners;
    uint32_t *counts;
    uint32_t *top;
    uint32_t *histogram;
    IntSet mine, others_seen, counted;
} Scratch;

static void scratch_free(Scratch *s) {
    free(s->ascii);
    free(s->tokens);
    free(s->words);
    free(s->values);
    free(s->word_values);
    free(s->reads);
    free(s->shared);
    free(s->owners);
    free(s->counts);
    free(s->top);
    free(s->histogram);
    intset_free(&s->mine);
    intset_free(&s->others_seen);
    intset_free(&s->counted);
}

static PyObject *corrupt(Scratch *scratch) {
    scratch_free(scratch);
    PyErr_SetString(PyExc_ValueError, "Lookup: the index arrays disagree");
    return NULL;
}

static PyObject *lookup_nearest(Lookup *self, PyObject *lowered) {
    if (!PyUnicode_Check(lowered)) {
        PyErr_SetString(PyExc_TypeError, "nearest() takes a str");
        return NULL;
    }
    if (!self->ready) {
        PyErr_SetString(PyExc_ValueError, "Lookup is not initialized");
        return NULL;
    }
    Scratch scratch = {0};
    Py_ssize_t length = PyUnicode_GET_LENGTH(lowered);
    const char *text;
    if (PyUnicode_IS_ASCII(lowered)) {
        text = (const char *)PyUnicode_1BYTE_DATA(lowered);
    } else { /* a token is a run of ASCII word characters: anything else separates */
        int kind = PyUnicode_KIND(lowered);
        const void *data = PyUnicode_DATA(lowered);
        scratch.ascii = malloc((size_t)length + 1);
        if (!scratch.ascii) return PyErr_NoMemory();
        for (Py_ssize_t i = 0; i < length; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            scratch.ascii[i] = c < 128 ? (char)c : ' ';
        }
        text = scratch.ascii;
    }
    const Tokens *table = &self->tokens;
    size_t most = (size_t)length / 2 + 1; /* tokens are separated */
    scratch.tokens = malloc(most * sizeof(Token));
    scratch.words = malloc(most * sizeof(Token));
    scratch.values = malloc(most * sizeof(int64_t));
    scratch.word_values = malloc(most * sizeof(int64_t));
    scratch.reads = malloc(most * sizeof(uint64_t));
    if (!scratch.tokens || !scratch.words || !scratch.values || !scratch.word_values ||
        !scratch.reads || intset_make(&scratch.mine, most) < 0 ||
        intset_make(&scratch.others_seen, most) < 0) {
        scratch_free(&scratch);
        return PyErr_NoMemory();
    }
    /* 1. Tokens, and each token's word (a token minus leading digits and underscores,
       of two characters or more), hashed, their table slots prefetched together. */
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < length;) {
        if (!is_token_char((unsigned char)text[i])) {
            i++;
            continue;
        }
        Py_ssize_t j = i;
        while (j < length && is_token_char((unsigned char)text[j])) j++;
        Token *t = &scratch.tokens[n], *w = &scratch.words[n];
        t->start = i;
        t->length = j - i;
        t->hash = token_hash(text + i, j - i);
        prefetch_slot(table, t->hash);
        Py_ssize_t k = i;
        while (k < j && is_leading_digit((unsigned char)text[k])) k++;
        w->start = k;
        w->length = j - k > 1 ? j - k : 0;
        w->hash = k == i ? t->hash : w->length ? token_hash(text + k, j - k) : 0;
        if (w->length && k != i) prefetch_slot(table, w->hash);
        n++;
        i = j;
    }
    /* 2. Their ids. */
    for (Py_ssize_t k = 0; k < n; k++) {
        Token *t = &scratch.tokens[k], *w = &scratch.words[k];
        scratch.values[k] = table_get(table, text + t->start, t->length, t->hash);
        scratch.word_values[k] = !w->length             ? -1
                                 : w->start == t->start ? scratch.values[k]
                                                        : table_get(table, text + w->start,
                                                                    w->length, w->hash);
    }
    /* 3. The message's words by id (and how many distinct ones no template has), and
       the slot of each pair of adjacent known tokens, prefetched together. */
    const Py_buffer *start = &self->views[PAIR_START];
    uint64_t pair_slots = self->pair_slots;
    Py_ssize_t reads = 0, others = 0, known_words = 0;
    int64_t previous = -1;
    uint64_t *buckets = (uint64_t *)scratch.reads; /* pair hashes first, then reads */
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t value = scratch.values[k];
        if (value >= 0) {
            if (previous >= 0) {
                uint64_t hashed = pair_hash((uint64_t)previous, (uint64_t)value >> 1);
                uint64_t bucket = (hashed >> 16) % pair_slots;
                __builtin_prefetch((const char *)start->buf + 4 * bucket);
                buckets[reads++] = bucket << 16 | (hashed & 0xFFFF);
            }
            previous = value >> 1;
            if (value & 1) {
                known_words += intset_insert(&scratch.mine, (uint32_t)(value >> 1));
                continue;
            }
        } else {
            previous = -1;
        }
        Token *w = &scratch.words[k];
        if (!w->length) continue;
        int64_t word = scratch.word_values[k];
        if (word >= 0) {
            known_words += intset_insert(&scratch.mine, (uint32_t)(word >> 1));
        } else {
            /* distinct unknown words: by hash, then text, against the first of each */
            uint32_t key = (uint32_t)(w->hash & 0x7FFFFFFF);
            int seen = 0;
            uint64_t at = (key * 0x9E3779B97F4A7C15ULL) >> 40 & scratch.others_seen.mask;
            for (; scratch.others_seen.keys[at] != EMPTY;
                 at = (at + 1) & scratch.others_seen.mask) {
                Token *o = &scratch.words[scratch.others_seen.where[at]];
                if (scratch.others_seen.keys[at] == key && o->length == w->length &&
                    memcmp(text + o->start, text + w->start, (size_t)w->length) == 0) {
                    seen = 1;
                    break;
                }
            }
            if (!seen) {
                scratch.others_seen.keys[at] = key;
                scratch.others_seen.where[at] = (uint32_t)k;
                others++;
            }
        }
    }
    if (known_words + others < self->min_words) {
        scratch_free(&scratch);
        return Py_BuildValue("([]i)", 0);
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t r = 0; r < reads; r++) {
        uint64_t bucket = buckets[r] >> 16;
        uint64_t size = u32(start, bucket + 1) - (uint64_t)u32(start, bucket);
        if (size && size <= (uint64_t)self->pair_templates)
            scratch.reads[kept++] = size << 48 | buckets[r];
    }
    /* 4. The postings of the rarest pairs first, APPROX_READ at most. */
    qsort(scratch.reads, (size_t)kept, sizeof(uint64_t), compare_u64);
    const Py_buffer *fingerprints = &self->views[FINGERPRINT], *owner = &self->views[OWNER];
    const uint16_t *fingerprint = (const uint16_t *)fingerprints->buf;
    const uint32_t *owners = (const uint32_t *)owner->buf;
    uint64_t postings = (uint64_t)owner->len / 4;
    if ((uint64_t)fingerprints->len / 2 != postings) return corrupt(&scratch);
    /* The pairs read, kept in place as `first posting << 32 | size << 16 | fingerprint`
       and their postings prefetched together, then read. */
    long read = 0;
    Py_ssize_t chosen_pairs = 0;
    uint64_t last = UINT64_MAX;
    for (Py_ssize_t r = 0; r < kept; r++) {
        uint64_t item = scratch.reads[r], size = item >> 48;
        if (item == last || read + (long)size > self->read_cap) continue;
        last = item;
        read += (long)size;
        uint64_t low = u32(start, (item >> 16) & 0xFFFFFFFF);
        if (low + size > postings) return corrupt(&scratch);
        __builtin_prefetch(fingerprint + low);
        __builtin_prefetch(owners + low);
        scratch.reads[chosen_pairs++] = low << 32 | size << 16 | (item & 0xFFFF);
    }
    scratch.shared = malloc(((size_t)read + 1) * 4);
    if (!scratch.shared) {
        scratch_free(&scratch);
        return PyErr_NoMemory();
    }
    Py_ssize_t shared = 0;
    for (Py_ssize_t r = 0; r < chosen_pairs; r++) {
        uint64_t pair = scratch.reads[r], low = pair >> 32, size = pair >> 16 & 0xFFFF;
        uint16_t mark = (uint16_t)(pair & 0xFFFF);
        for (uint64_t at = low; at < low + size; at++)
            if (fingerprint[at] == mark) scratch.shared[shared++] = owners[at];
    }
    if (!shared) {
        scratch_free(&scratch);
        return Py_BuildValue("([]l)", read);
    }
    /* 5. Templates by pairs shared, in order first counted; the most shared are scored. */
    scratch.owners = malloc((size_t)shared * 4);
    scratch.counts = calloc((size_t)shared, 4);
    scratch.top = malloc((size_t)shared * 4);
    if (!scratch.owners || !scratch.counts || !scratch.top ||
        intset_make(&scratch.counted, (uint64_t)shared) < 0) {
        scratch_free(&scratch);
        return PyErr_NoMemory();
    }
    uint32_t distinct = 0, highest = 0;
    for (Py_ssize_t k = 0; k < shared; k++) {
        uint32_t at = intset_add(&scratch.counted, scratch.shared[k], distinct);
        if (at == distinct) scratch.owners[distinct++] = scratch.shared[k];
        if (++scratch.counts[at] > highest) highest = scratch.counts[at];
    }
    const Py_buffer *words_start = &self->views[WORDS_START], *few_view = &self->views[PAIR_COUNT];
    const unsigned char *few = (const unsigned char *)few_view->buf;
    uint64_t templates = (uint64_t)words_start->len / 4;
    uint32_t chosen = 0;
    if (distinct <= (uint32_t)self->candidates) {
        for (uint32_t k = 0; k < distinct; k++) scratch.top[chosen++] = k;
    } else { /* what _most_counted gives: all above the cut, then the first at it */
        scratch.histogram = calloc((size_t)highest + 1, 4);
        if (!scratch.histogram) {
            scratch_free(&scratch);
            return PyErr_NoMemory();
        }
        for (uint32_t k = 0; k < distinct; k++) scratch.histogram[scratch.counts[k]]++;
        uint64_t taken = 0, cut = (uint64_t)highest + 1;
        while (taken < (uint64_t)self->candidates && cut > 1) taken += scratch.histogram[--cut];
        for (uint32_t k = 0; k < distinct; k++)
            if (scratch.counts[k] > cut) scratch.top[chosen++] = k;
        uint64_t room = (uint64_t)self->candidates > chosen ? self->candidates - chosen : 0;
        for (uint32_t k = 0; k < distinct && room; k++)
            if (scratch.counts[k] == cut) {
                scratch.top[chosen++] = k;
                room--;
            }
    }
    /* 6. Each candidate's score: the idf-weighted share of its words the message has. */
    const Py_buffer *flat = &self->views[TEMPLATE_WORDS];
    const double *idf = (const double *)self->views[IDF].buf;
    const double *idf_total = (const double *)self->views[IDF_TOTAL].buf;
    uint64_t words = (uint64_t)self->views[IDF].len / 8, flat_len = (uint64_t)flat->len / 4;
    uint64_t totals = (uint64_t)self->views[IDF_TOTAL].len / 8;
    uint64_t few_len = (uint64_t)few_view->len;
    for (uint32_t c = 0; c < chosen; c++) {
        uint32_t i = scratch.owners[scratch.top[c]];
        if ((uint64_t)i + 1 >= templates || i >= few_len || i >= totals) return corrupt(&scratch);
        __builtin_prefetch((const char *)words_start->buf + 4 * (uint64_t)i);
        __builtin_prefetch(few + i);
        __builtin_prefetch(idf_total + i);
    }
    PyObject *out = PyList_New(0);
    if (!out) {
        scratch_free(&scratch);
        return NULL;
    }
    for (uint32_t c = 0; c < chosen; c++) {
        uint32_t k = scratch.top[c], i = scratch.owners[k];
        if (scratch.counts[k] <= 1 && few[i] > self->few_pairs) continue;
        uint64_t low = u32(words_start, i), high = u32(words_start, (uint64_t)i + 1);
        if (high < low || high > flat_len) {
            Py_DECREF(out);
            return corrupt(&scratch);
        }
        if ((long)(high - low) < self->min_words) continue;
        double total = 0.0;
        long found = 0;
        for (uint64_t at = low; at < high; at++) {
            uint32_t word = u32(flat, at);
            if (intset_has(&scratch.mine, word)) {
                if (word >= words) {
                    Py_DECREF(out);
                    return corrupt(&scratch);
                }
                total += idf[word];
                found++;
            }
        }
        if (found < 2) continue;
        double score = total / idf_total[i];
        if (score >= self->threshold) {
            double order = 0.0;
            if (few[i]) {
                order = (double)scratch.counts[k] / (double)few[i];
                if (!(order < 1.0)) order = 1.0;
            }
            PyObject *row = Py_BuildValue("(Id(ll)d)", i, score, found, (long)(high - low), order);
            if (!row || PyList_Append(out, row) < 0) {
                Py_XDECREF(row);
                Py_DECREF(out);
                scratch_free(&scratch);
                return NULL;
            }
            Py_DECREF(row);
        }
    }
    scratch_free(&scratch);
    return Py_BuildValue("(Nl)", out, read);
}

static PyMethodDef lookup_methods[] = {
    {"nearest", (PyCFunction)lookup_nearest, METH_O,
     "(near templates, postings read) for a lowercased message, as "
     "NearIndex._nearest_python gives them."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject LookupType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "errdex.match._nearc.Lookup",
    .tp_basicsize = sizeof(Lookup),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A NearIndex's arrays, held for nearest().",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)lookup_init,
    .tp_dealloc = (destructor)lookup_dealloc,
    .tp_methods = lookup_methods,
};

static PyMethodDef module_methods[] = {
    {"token_table", token_table, METH_O,
     "The bytes of a flat hash table over a dict of ASCII token -> id, for Lookup."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "errdex.match._nearc", "errdex.match.near's lookup, in C.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__nearc(void) {
    if (PyType_Ready(&LookupType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&LookupType);
    if (PyModule_AddObject(m, "Lookup", (PyObject *)&LookupType) < 0) {
        Py_DECREF(&LookupType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
