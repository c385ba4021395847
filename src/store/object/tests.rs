use super::*;

#[test]
fn server_xml_errors_become_one_line() {
    let t = "Error performing GET http://h/b in 1ms - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>";
    assert_eq!(summarize(t), "HTTP 404 Not Found NoSuchBucket: The specified bucket does not exist");
    assert_eq!(summarize("a\n  b"), "a b");
    let az = "Server returned non-2xx status code: 404 Not Found: <Error><Code>ContainerNotFound</Code><Message>The specified container does not exist.\nRequestId:5c0\nTime:2026-11-22T11:50:40Z</Message></Error>";
    assert_eq!(summarize(az), "HTTP 404 Not Found ContainerNotFound: The specified container does not exist.");
    let gcs = "Error performing PUT http://h/b/o in 1ms - Server returned non-2xx status code: 400 Bad Request: {\"error\":{\"code\":400,\"message\":\"invalid uploadType\",\"errors\":[]}}";
    assert_eq!(summarize(gcs), "HTTP 400 Bad Request: invalid uploadType");
}
