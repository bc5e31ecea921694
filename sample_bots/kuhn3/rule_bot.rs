// rule_bot.rs - a deterministic "passive caller" for 3-player Kuhn poker,
// speaking the arena text protocol on stdin/stdout.
//
// Rule: never bets first (always checks when it can).
//       Facing a bet: call with A or K; call with Q only when heads-up
//       (the other opponent has folded); fold J.
// It tracks everyone's money to answer the dealer's "Money:" check.
//
// Build: rustc -O rule_bot.rs -o build/rule_bot_rs   (std only, no cargo)
// Run:   ./build/rule_bot_rs

use std::io::{self, BufRead, Write};
use std::process;

/// All integers (optionally negative) in a string, in order.
fn ints(s: &str) -> Vec<i64> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let neg = b[i] == b'-' && i + 1 < b.len() && b[i + 1].is_ascii_digit();
        if neg || b[i].is_ascii_digit() {
            let start = i;
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if let Ok(v) = s[start..i].parse() {
                out.push(v);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Text after "Key:" (the whole line if there is no colon).
fn body_of(line: &str) -> &str {
    match line.find(':') {
        Some(i) => line[i + 1..].trim(),
        None => line,
    }
}

struct Action {
    kind: String,
    value: i64,
}

fn parse_action(line: &str) -> Action {
    let body = body_of(line);
    let kind = body.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
    let value = ints(body).first().copied().unwrap_or(0);
    Action { kind, value }
}

fn decide(card: char, acts: &[Action]) -> String {
    let mine = acts[0].value;
    let top = acts.iter().map(|a| a.value).max().unwrap_or(mine);
    if top <= mine {
        return format!("BET {}", mine); // check
    }
    let heads_up = acts[1..].iter().filter(|a| a.kind == "FOLD").count() == 1;
    let call = matches!(card, 'A' | 'K') || (card == 'Q' && heads_up);
    if call {
        format!("BET {}", top)
    } else {
        format!("FOLD {}", mine)
    }
}

struct Io {
    input: io::StdinLock<'static>,
    out: io::Stdout,
    buf: String,
}

impl Io {
    /// Next non-empty line, trimmed (handles a trailing '\r'); exits quietly on EOF.
    fn next_line(&mut self) -> String {
        loop {
            self.buf.clear();
            match self.input.read_line(&mut self.buf) {
                Ok(0) | Err(_) => process::exit(0),
                Ok(_) => {
                    let t = self.buf.trim();
                    if !t.is_empty() {
                        return t.to_string();
                    }
                }
            }
        }
    }

    fn fields(&mut self, n: usize) -> Vec<String> {
        (0..n).map(|_| self.next_line()).collect()
    }

    fn reply(&mut self, text: &str) {
        let mut o = self.out.lock();
        // Flush each reply: the dealer blocks until it sees the line.
        if writeln!(o, "{}", text).and_then(|_| o.flush()).is_err() {
            process::exit(0); // dealer closed our stdout
        }
    }
}

fn main() {
    let mut io = Io { input: io::stdin().lock(), out: io::stdout(), buf: String::new() };
    let mut money: [i64; 3] = [0; 3];
    let mut card = 'J';
    let mut end_actions = 0;

    loop {
        let header = io.next_line();
        match header.as_str() {
            "init_round" => {
                for l in io.fields(4) {
                    if l.starts_with("Money") {
                        for (m, v) in money.iter_mut().zip(ints(body_of(&l))) {
                            *m = v;
                        }
                    }
                }
                io.reply("READY");
            }
            "init_hand" => {
                for l in io.fields(2) {
                    if l.starts_with("Cards") {
                        card = body_of(&l).chars().next().unwrap_or('J').to_ascii_uppercase();
                    }
                }
                io.reply("READY");
            }
            "play" => {
                let acts: Vec<Action> = io.fields(3).iter().map(|l| parse_action(l)).collect();
                let r = decide(card, &acts);
                io.reply(&r);
            }
            "end_hand" => {
                // Each seat loses what it has in front; each pot goes to its winner.
                let mut seat = 0;
                for l in io.fields(5) {
                    if l.starts_with("Action") && seat < 3 {
                        money[seat] -= parse_action(&l).value;
                        seat += 1;
                    } else if l.starts_with("Pots") {
                        // "<value>,<winner>" pairs, possibly several
                        for p in ints(body_of(&l)).chunks(2) {
                            if p.len() == 2 && (0..3).contains(&p[1]) {
                                money[p[1] as usize] += p[0];
                            }
                        }
                    }
                }
                end_actions = 0;
                io.reply("OK");
            }
            "end_round" => {
                io.fields(2);
                io.reply("Thank you dealer, have a nice day!");
                process::exit(0);
            }
            h if h.starts_with("EndAction") => {
                // Three header-less lines; the Money check is due after the third.
                end_actions += 1;
                if end_actions == 3 {
                    end_actions = 0;
                    io.reply(&format!("Money: {},{},{}", money[0], money[1], money[2]));
                }
            }
            h => eprintln!("rule_bot.rs: ignoring unexpected line {:?}", h),
        }
    }
}
