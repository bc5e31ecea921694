// A small JSON reader and string quoting for the runner: Mono's mcs ships no
// JSON library. Objects become Dictionary<string, object>, arrays
// List<object>, numbers long (or double when not an integer), plus string,
// bool and null.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

public static class MiniJson
{
    private const int MaxDepth = 64;

    /// <summary>Parses one JSON value; FormatException says what is wrong.</summary>
    public static object Parse(string text)
    {
        if (text == null) throw new ArgumentNullException("text");
        int at = 0;
        object value = ReadValue(text, ref at, 0);
        SkipSpace(text, ref at);
        if (at != text.Length) throw new FormatException("unexpected text after the JSON value at " + at);
        return value;
    }

    /// <summary>A JSON string literal for s.</summary>
    public static string Quote(string s)
    {
        StringBuilder sb = new StringBuilder(s.Length + 2);
        sb.Append('"');
        foreach (char c in s)
        {
            switch (c)
            {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                default:
                    if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
                    else sb.Append(c);
                    break;
            }
        }
        return sb.Append('"').ToString();
    }

    // ---- reading fields of a parsed object ----------------------------------------

    public static bool Has(IDictionary<string, object> o, string key)
    {
        return o.ContainsKey(key) && o[key] != null;
    }

    public static string Str(IDictionary<string, object> o, string key, string fallback)
    {
        object v;
        return o.TryGetValue(key, out v) && v is string ? (string)v : fallback;
    }

    public static int Int(IDictionary<string, object> o, string key, int fallback)
    {
        object v;
        return o.TryGetValue(key, out v) ? ToInt(v, fallback) : fallback;
    }

    public static bool Bool(IDictionary<string, object> o, string key, bool fallback)
    {
        object v;
        return o.TryGetValue(key, out v) && v is bool ? (bool)v : fallback;
    }

    public static List<object> List(IDictionary<string, object> o, string key)
    {
        object v;
        return o.TryGetValue(key, out v) && v is List<object> ? (List<object>)v : new List<object>();
    }

    public static IDictionary<string, object> Obj(IDictionary<string, object> o, string key)
    {
        object v;
        return o.TryGetValue(key, out v) ? v as IDictionary<string, object> : null;
    }

    public static int[] Ints(IDictionary<string, object> o, string key)
    {
        List<object> items = List(o, key);
        int[] result = new int[items.Count];
        for (int i = 0; i < result.Length; i++) result[i] = ToInt(items[i], 0);
        return result;
    }

    public static string[] Strs(IDictionary<string, object> o, string key)
    {
        List<object> items = List(o, key);
        string[] result = new string[items.Count];
        for (int i = 0; i < result.Length; i++) result[i] = items[i] as string;
        return result;
    }

    /// <summary>A JSON number as an int, saturated at the int range.</summary>
    public static int ToInt(object v, int fallback)
    {
        if (v is long) return (int)Math.Max(int.MinValue, Math.Min(int.MaxValue, (long)v));
        if (v is double)
        {
            double d = Math.Floor((double)v);
            if (double.IsNaN(d)) return fallback;
            return d >= int.MaxValue ? int.MaxValue : d <= int.MinValue ? int.MinValue : (int)d;
        }
        return fallback;
    }

    // ---- the parser -----------------------------------------------------------------

    private static void SkipSpace(string s, ref int at)
    {
        while (at < s.Length && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r')) at++;
    }

    private static object ReadValue(string s, ref int at, int depth)
    {
        if (depth > MaxDepth) throw new FormatException("JSON nested too deeply");
        SkipSpace(s, ref at);
        if (at >= s.Length) throw new FormatException("unexpected end of JSON");
        char c = s[at];
        if (c == '{') return ReadObject(s, ref at, depth);
        if (c == '[') return ReadArray(s, ref at, depth);
        if (c == '"') return ReadString(s, ref at);
        if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber(s, ref at);
        if (Word(s, ref at, "true")) return true;
        if (Word(s, ref at, "false")) return false;
        if (Word(s, ref at, "null")) return null;
        throw new FormatException("unexpected character '" + c + "' at " + at);
    }

    private static bool Word(string s, ref int at, string word)
    {
        if (string.CompareOrdinal(s, at, word, 0, word.Length) != 0) return false;
        at += word.Length;
        return true;
    }

    private static Dictionary<string, object> ReadObject(string s, ref int at, int depth)
    {
        Dictionary<string, object> o = new Dictionary<string, object>();
        at++; // {
        SkipSpace(s, ref at);
        if (at < s.Length && s[at] == '}') { at++; return o; }
        while (true)
        {
            SkipSpace(s, ref at);
            if (at >= s.Length || s[at] != '"') throw new FormatException("expected a key at " + at);
            string key = ReadString(s, ref at);
            SkipSpace(s, ref at);
            if (at >= s.Length || s[at] != ':') throw new FormatException("expected ':' at " + at);
            at++;
            o[key] = ReadValue(s, ref at, depth + 1);
            SkipSpace(s, ref at);
            if (at < s.Length && s[at] == ',') { at++; continue; }
            if (at < s.Length && s[at] == '}') { at++; return o; }
            throw new FormatException("expected ',' or '}' at " + at);
        }
    }

    private static List<object> ReadArray(string s, ref int at, int depth)
    {
        List<object> a = new List<object>();
        at++; // [
        SkipSpace(s, ref at);
        if (at < s.Length && s[at] == ']') { at++; return a; }
        while (true)
        {
            a.Add(ReadValue(s, ref at, depth + 1));
            SkipSpace(s, ref at);
            if (at < s.Length && s[at] == ',') { at++; continue; }
            if (at < s.Length && s[at] == ']') { at++; return a; }
            throw new FormatException("expected ',' or ']' at " + at);
        }
    }

    private static string ReadString(string s, ref int at)
    {
        StringBuilder sb = new StringBuilder();
        at++; // opening quote
        while (at < s.Length)
        {
            char c = s[at++];
            if (c == '"') return sb.ToString();
            if (c != '\\') { sb.Append(c); continue; }
            if (at >= s.Length) break;
            char e = s[at++];
            switch (e)
            {
                case '"': sb.Append('"'); break;
                case '\\': sb.Append('\\'); break;
                case '/': sb.Append('/'); break;
                case 'b': sb.Append('\b'); break;
                case 'f': sb.Append('\f'); break;
                case 'n': sb.Append('\n'); break;
                case 'r': sb.Append('\r'); break;
                case 't': sb.Append('\t'); break;
                case 'u':
                    int code;
                    if (at + 4 > s.Length || !int.TryParse(s.Substring(at, 4), NumberStyles.AllowHexSpecifier,
                                                           CultureInfo.InvariantCulture, out code))
                        throw new FormatException("bad \\u escape at " + at);
                    sb.Append((char)code);
                    at += 4;
                    break;
                default: throw new FormatException("bad escape '\\" + e + "' at " + at);
            }
        }
        throw new FormatException("unterminated string");
    }

    private static object ReadNumber(string s, ref int at)
    {
        int start = at;
        if (s[at] == '-') at++;
        while (at < s.Length && "0123456789+-.eE".IndexOf(s[at]) >= 0) at++;
        string text = s.Substring(start, at - start);
        long l;
        if (long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out l)) return l;
        double d;
        if (double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out d)) return d;
        throw new FormatException("bad number '" + text + "' at " + start);
    }
}
